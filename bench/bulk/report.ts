import { integer, markdown } from '../report.ts';

/** What one engine measured; a figure is missing when a step before it failed. */
export interface BulkFigures {
  /** Memories a second, of single adds and of imports. */
  singlePerSecond?: number;
  importPerSecond?: number;
  exportPerSecond?: number;
  /**
   * The server process's resident memory, MB: once started, idle before the export (after the
   * adds and the import), and its peak during; undefined where /proc could not be read.
   */
  rssStartMb?: number | undefined;
  rssIdleMb?: number | undefined;
  rssPeakMb?: number | undefined;
  /** The one DELETE's time. */
  eraseSeconds?: number;
  /** The pull from the cursor read before the erase answered every id deleted, and nothing else. */
  erasedExactly?: boolean;
}

export interface BulkRun {
  readonly engine: string;
  readonly figures: BulkFigures;
  /** What went wrong, when a step failed: the run is broken. */
  readonly failure?: string;
}

/** A target on one figure of a run: the figure, as text, and whether it is met. */
export interface BulkTarget {
  readonly name: string;
  readonly bound: string;
  value(figures: BulkFigures): number | undefined;
  met(value: number): boolean;
  text(value: number): string;
}

/** The targets, each on one engine's figures. */
export const BULK_TARGETS = {
  importRatio: {
    name: 'import ÷ single adds',
    bound: '≥ 10×',
    value: (f) =>
      f.importPerSecond === undefined || f.singlePerSecond === undefined
        ? undefined
        : f.importPerSecond / f.singlePerSecond,
    met: (ratio) => ratio >= 10,
    text: (ratio) => `${ratio.toFixed(1)}×`,
  },
  exportRate: {
    name: 'export, memories/s',
    bound: '≥ 50,000',
    value: (f) => f.exportPerSecond,
    met: (rate) => rate >= 50_000,
    text: (rate) => integer.format(rate),
  },
  exportMemory: {
    name: 'server RSS while exporting, peak − idle, MB',
    bound: '≤ 50',
    value: (f) =>
      f.rssPeakMb === undefined || f.rssIdleMb === undefined
        ? undefined
        : f.rssPeakMb - f.rssIdleMb,
    met: (mb) => mb <= 50,
    text: (mb) => `+${mb.toFixed(0)}`,
  },
  erase: {
    name: 'erase of the store, s',
    bound: '< 5',
    value: (f) => f.eraseSeconds,
    met: (seconds) => seconds < 5,
    text: (seconds) => seconds.toFixed(2),
  },
} as const satisfies Record<string, BulkTarget>;

export type BulkVerdict = 'met' | 'missed' | 'not measured';

export function verdictOf(target: BulkTarget, figures: BulkFigures): BulkVerdict {
  const value = target.value(figures);
  if (value === undefined) return 'not measured';
  return target.met(value) ? 'met' : 'missed';
}

const VERDICT_TEXT: Record<BulkVerdict, string> = {
  met: 'met',
  missed: 'MISSED',
  'not measured': 'not measured',
};

/** How the figures were taken, for the table's rows. */
export interface BulkSetting {
  readonly memories: number;
  readonly perImport: number;
  readonly connections: number;
  readonly seconds: number;
}

/** A row of the table: a measure, its cell for each engine, and its target if it has one. */
interface Row {
  readonly label: string;
  cell(figures: BulkFigures): string;
  readonly bound: string;
}

const measured = (label: string, cell: (figures: BulkFigures) => string): Row => ({
  label,
  cell,
  bound: '',
});

const judged = (target: BulkTarget): Row => ({
  label: target.name,
  cell(figures) {
    const value = target.value(figures);
    return value === undefined
      ? '–'
      : `${target.text(value)} ${VERDICT_TEXT[verdictOf(target, figures)]}`;
  },
  bound: target.bound,
});

const figure = (value: number | undefined, text: (value: number) => string) =>
  value === undefined ? '–' : text(value);
const megabytes = (value: number) => value.toFixed(0);

/**
 * The table: a row per measure, a column per engine, each judged figure beside its verdict;
 * then what failed on an engine.
 */
export function formatBulk(runs: readonly BulkRun[], setting: BulkSetting): string {
  const rows: Row[] = [
    measured(
      `single adds, memories/s (${setting.connections} connections, ${setting.seconds} s)`,
      (f) => figure(f.singlePerSecond, integer.format),
    ),
    measured(
      `import, memories/s (${integer.format(setting.perImport)} a request, one at a time)`,
      (f) => figure(f.importPerSecond, integer.format),
    ),
    judged(BULK_TARGETS.importRatio),
    judged(BULK_TARGETS.exportRate),
    measured('server RSS once started, MB', (f) => figure(f.rssStartMb, megabytes)),
    measured('server RSS idle before the export, MB', (f) => figure(f.rssIdleMb, megabytes)),
    measured('server RSS peak while exporting, MB', (f) => figure(f.rssPeakMb, megabytes)),
    judged(BULK_TARGETS.exportMemory),
    judged(BULK_TARGETS.erase),
    measured('pull and list after the erase', (f) =>
      f.erasedExactly === undefined ? '–' : f.erasedExactly ? 'exact' : 'WRONG',
    ),
  ];
  const header = ['measure', ...runs.map((run) => run.engine), 'target'];
  return [
    `${integer.format(setting.memories)} memories imported into one empty store, exported, then erased in one request; one server process per engine.`,
    '',
    markdown(
      header,
      rows.map((row) => [row.label, ...runs.map((run) => row.cell(run.figures)), row.bound]),
      1,
      runs.length,
    ),
    ...runs.flatMap((run) =>
      run.failure === undefined ? [] : [`${run.engine}: FAILED: ${run.failure}`],
    ),
  ].join('\n');
}

/** Whether any target was missed on any engine. */
export function missesBulkTargets(runs: readonly BulkRun[]): boolean {
  const targets: readonly BulkTarget[] = Object.values(BULK_TARGETS);
  return runs.some((run) => targets.some((t) => verdictOf(t, run.figures) === 'missed'));
}
