import { describe, expect, it } from 'vitest';
import {
  BULK_TARGETS,
  type BulkFigures,
  type BulkRun,
  formatBulk,
  missesBulkTargets,
  verdictOf,
} from './report.ts';

const figures = (over: BulkFigures = {}): BulkFigures => ({
  singlePerSecond: 1000,
  importPerSecond: 12_000,
  exportPerSecond: 60_000,
  rssStartMb: 80,
  rssIdleMb: 100,
  rssPeakMb: 140,
  eraseSeconds: 2.5,
  erasedExactly: true,
  ...over,
});

/** The cells of a row of a Markdown table, trimmed. */
const cells = (line: string | undefined) =>
  (line ?? '')
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.trim());

const setting = { memories: 100_000, perImport: 1000, connections: 100, seconds: 5 };

describe('the bulk targets', () => {
  it('judges each at its bound', () => {
    const { importRatio, exportRate, exportMemory, erase } = BULK_TARGETS;
    expect(verdictOf(importRatio, figures({ importPerSecond: 10_000 }))).toBe('met');
    expect(verdictOf(importRatio, figures({ importPerSecond: 9_999 }))).toBe('missed');
    expect(verdictOf(exportRate, figures({ exportPerSecond: 50_000 }))).toBe('met');
    expect(verdictOf(exportRate, figures({ exportPerSecond: 49_999 }))).toBe('missed');
    expect(verdictOf(exportMemory, figures({ rssPeakMb: 150 }))).toBe('met');
    expect(verdictOf(exportMemory, figures({ rssPeakMb: 150.5 }))).toBe('missed');
    expect(verdictOf(erase, figures({ eraseSeconds: 4.99 }))).toBe('met');
    expect(verdictOf(erase, figures({ eraseSeconds: 5 }))).toBe('missed');
  });

  it('leaves a figure not measured unjudged, neither met nor missed', () => {
    const partial = { singlePerSecond: 1000 };
    expect(verdictOf(BULK_TARGETS.importRatio, partial)).toBe('not measured');
    expect(verdictOf(BULK_TARGETS.exportMemory, figures({ rssIdleMb: undefined }))).toBe(
      'not measured',
    );
    expect(
      missesBulkTargets([{ engine: 'sqlite', figures: partial, failure: 'import: 500' }]),
    ).toBe(false);
  });

  it('counts a miss on any engine', () => {
    const runs: BulkRun[] = [
      { engine: 'sqlite', figures: figures() },
      { engine: 'postgres', figures: figures({ eraseSeconds: 6 }) },
    ];
    expect(missesBulkTargets(runs)).toBe(true);
    expect(missesBulkTargets(runs.slice(0, 1))).toBe(false);
  });
});

describe('formatBulk', () => {
  it('prints a row per measure, a column per engine, each judged figure beside its verdict', () => {
    const table = formatBulk(
      [
        { engine: 'sqlite', figures: figures() },
        { engine: 'postgres', figures: figures({ importPerSecond: 4_500 }) },
      ],
      setting,
    );
    const rows = table.split('\n').filter((line) => line.startsWith('| '));
    expect(cells(rows[0])).toEqual(['measure', 'sqlite', 'postgres', 'target']);
    expect(rows.slice(2).map(cells)).toEqual([
      ['single adds, memories/s (100 connections, 5 s)', '1,000', '1,000', ''],
      ['import, memories/s (1,000 a request, one at a time)', '12,000', '4,500', ''],
      ['import ÷ single adds', '12.0× met', '4.5× MISSED', '≥ 10×'],
      ['export, memories/s', '60,000 met', '60,000 met', '≥ 50,000'],
      ['server RSS once started, MB', '80', '80', ''],
      ['server RSS idle before the export, MB', '100', '100', ''],
      ['server RSS peak while exporting, MB', '140', '140', ''],
      ['server RSS while exporting, peak − idle, MB', '+40 met', '+40 met', '≤ 50'],
      ['erase of the store, s', '2.50 met', '2.50 met', '< 5'],
      ['pull and list after the erase', 'exact', 'exact', ''],
    ]);
  });

  it('shows what a failed engine measured before its failure, and the failure', () => {
    const table = formatBulk(
      [{ engine: 'postgres', figures: { singlePerSecond: 2000 }, failure: 'import: 500' }],
      setting,
    );
    const rows = table.split('\n').filter((line) => line.startsWith('| '));
    expect(cells(rows[2])).toEqual(['single adds, memories/s (100 connections, 5 s)', '2,000', '']);
    expect(cells(rows[4])).toEqual(['import ÷ single adds', '–', '≥ 10×']);
    expect(table.split('\n').at(-1)).toBe('postgres: FAILED: import: 500');
  });
});
