import type { ModelConfig } from '../../catalog.ts';
import type { ReasoningEffort } from '../../chat.schemas.ts';
import type { GeminiThinkingConfig, GeminiThinkingLevel } from './gemini.types.ts';

/**
 * A Gemini 2.5 model's thinking budgets (Gemini's thinking guide): the smallest and largest it
 * takes while thinking, and whether 0 turns its thinking off. 2.5 Pro cannot stop thinking.
 */
interface BudgetRange {
  readonly min: number;
  readonly max: number;
  readonly canStopThinking: boolean;
}

const PRO: BudgetRange = { min: 128, max: 32_768, canStopThinking: false };
const FLASH: BudgetRange = { min: 1, max: 24_576, canStopThinking: true };
const FLASH_LITE: BudgetRange = { min: 512, max: 24_576, canStopThinking: true };

/**
 * The budget for each effort: low, medium and high are the budgets Google's own OpenAI
 * compatibility gives them, minimal half of low; xhigh is the most the model takes. Each is
 * brought within the model's range.
 */
const BUDGETS: Readonly<Record<Exclude<ReasoningEffort, 'none' | 'xhigh'>, number>> = {
  minimal: 512,
  low: 1_024,
  medium: 8_192,
  high: 24_576,
};

/**
 * Gemini 3 thinks by level, and its Pro takes only `LOW` and `HIGH` (no `MINIMAL`, no
 * `MEDIUM`), nor can it stop thinking: the two levels every Gemini 3 model takes.
 */
const LEVELS: Readonly<Record<ReasoningEffort, GeminiThinkingLevel>> = {
  none: 'LOW',
  minimal: 'LOW',
  low: 'LOW',
  medium: 'HIGH',
  high: 'HIGH',
  xhigh: 'HIGH',
};

/**
 * The thinkingConfig for a request's `reasoning_effort`, by the upstream model's name: Gemini
 * 3 and later take `thinkingLevel`; the others (2.5, and names that say no version, which the
 * API still takes a budget from) a `thinkingBudget` within the family's range. The thoughts
 * are asked for whenever the model will think, so the answer carries them. Nothing without an
 * effort, or for a model the catalog does not mark as reasoning: the model then thinks as it
 * does by default (2.5 Pro, 2.5 Flash and Gemini 3 do, dynamically), and no thoughts are asked
 * for, so answers stay as they were.
 *
 * @example
 * thinkingConfigOf('high', { upstream: 'gemini-2.5-flash', reasoning: true });
 * // { includeThoughts: true, thinkingBudget: 24576 }
 * thinkingConfigOf('none', { upstream: 'gemini-2.5-pro', reasoning: true });
 * // { includeThoughts: true, thinkingBudget: 128 }: 2.5 Pro always thinks
 */
export function thinkingConfigOf(
  effort: ReasoningEffort | null | undefined,
  model: Pick<ModelConfig, 'upstream' | 'reasoning'>,
): GeminiThinkingConfig | undefined {
  if (effort == null || !model.reasoning) return undefined;
  const name = model.upstream.replace(/^models\//, '').toLowerCase();
  const version = Number(/^gemini-(\d+)/.exec(name)?.[1] ?? 0);
  if (version >= 3) return { includeThoughts: true, thinkingLevel: LEVELS[effort] };
  const range = rangeOf(name);
  if (effort === 'none') {
    return range.canStopThinking
      ? { thinkingBudget: 0 }
      : { includeThoughts: true, thinkingBudget: range.min };
  }
  const wanted = effort === 'xhigh' ? range.max : BUDGETS[effort];
  const budget = Math.min(range.max, Math.max(range.min, wanted));
  return { includeThoughts: true, thinkingBudget: budget };
}

function rangeOf(name: string): BudgetRange {
  if (name.includes('flash-lite')) return FLASH_LITE;
  if (name.includes('-pro')) return PRO;
  return FLASH;
}
