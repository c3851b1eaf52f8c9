import { describe, expect, it } from 'vitest';
import type { ReasoningEffort } from '../../chat.schemas.ts';
import { thinkingConfigOf } from './gemini.thinking.ts';

const EFFORTS: readonly ReasoningEffort[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'];
const configs = (upstream: string) =>
  EFFORTS.map((effort) => thinkingConfigOf(effort, { upstream, reasoning: true }));

describe('thinkingConfigOf', () => {
  it('gives Gemini 2.5 Flash budgets up to its 24,576, and 0 to stop its thinking', () => {
    expect(configs('gemini-2.5-flash')).toEqual([
      { thinkingBudget: 0 },
      { includeThoughts: true, thinkingBudget: 512 },
      { includeThoughts: true, thinkingBudget: 1024 },
      { includeThoughts: true, thinkingBudget: 8192 },
      { includeThoughts: true, thinkingBudget: 24_576 },
      { includeThoughts: true, thinkingBudget: 24_576 },
    ]);
  });

  it('keeps Gemini 2.5 Pro thinking (128 at least) and takes it up to 32,768', () => {
    expect(configs('gemini-2.5-pro')).toEqual([
      { includeThoughts: true, thinkingBudget: 128 },
      { includeThoughts: true, thinkingBudget: 512 },
      { includeThoughts: true, thinkingBudget: 1024 },
      { includeThoughts: true, thinkingBudget: 8192 },
      { includeThoughts: true, thinkingBudget: 24_576 },
      { includeThoughts: true, thinkingBudget: 32_768 },
    ]);
  });

  it('gives Gemini 2.5 Flash-Lite its range, 512 to 24,576, and 0', () => {
    expect(
      configs('models/gemini-2.5-flash-lite-preview-06-17').map((c) => c?.thinkingBudget),
    ).toEqual([0, 512, 1024, 8192, 24_576, 24_576]);
  });

  it('gives Gemini 3 models the levels every one of them takes, LOW and HIGH', () => {
    const levels = ['LOW', 'LOW', 'LOW', 'HIGH', 'HIGH', 'HIGH'];
    for (const upstream of ['gemini-3-pro-preview', 'gemini-3-flash-preview']) {
      expect(configs(upstream)).toEqual(
        levels.map((thinkingLevel) => ({ includeThoughts: true, thinkingLevel })),
      );
    }
  });

  it('asks nothing without an effort, or of a model that does not reason', () => {
    expect(thinkingConfigOf(undefined, { upstream: 'gemini-2.5-pro', reasoning: true })).toBe(
      undefined,
    );
    expect(thinkingConfigOf(null, { upstream: 'gemini-2.5-pro', reasoning: true })).toBe(undefined);
    expect(thinkingConfigOf('high', { upstream: 'gemini-2.0-flash', reasoning: false })).toBe(
      undefined,
    );
  });
});
