import type { ModelConfig } from '../../catalog.ts';
import type { ChatRequest, ReasoningDetail, ReasoningEffort } from '../../chat.schemas.ts';
import type {
  MessageParam,
  MessagesRequest,
  RedactedThinkingBlockParam,
  ThinkingBlockParam,
} from './anthropic.types.ts';

/**
 * The thinking budget (`budget_tokens`) of each `reasoning_effort`. `minimal` is Anthropic's
 * smallest budget; each step up doubles or quadruples the one before. `xhigh` is the largest
 * budget that, with the default answer budget (DEFAULT_MAX_TOKENS, 4096) on top, stays within
 * the smallest output limit of the built-in Claude models (Claude Opus 4.1: 32,000 tokens);
 * Anthropic also advises batch processing rather than live requests above 32K of thinking.
 */
export const THINKING_BUDGETS: Readonly<Record<Exclude<ReasoningEffort, 'none'>, number>> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 24576,
};

/**
 * The thinking budget a request asks for, or undefined for no thinking: only a reasoning model
 * thinks, and only when the client names an effort other than `none`. Without
 * `reasoning_effort` Claude answers without thinking, Anthropic's own default, so clients that
 * set a temperature keep working as before.
 */
export function thinkingBudgetOf(request: ChatRequest, model: ModelConfig): number | undefined {
  const effort = request.reasoning_effort;
  if (!model.reasoning || effort == null || effort === 'none') return undefined;
  return THINKING_BUDGETS[effort];
}

/**
 * The thinking an assistant turn came with, as the blocks Anthropic wants back: `anthropic`
 * text pieces with their signature as `thinking`, sealed pieces as `redacted_thinking`, in the
 * order the client sends them. Pieces of other providers, and unsigned text (which Anthropic
 * would refuse), are dropped.
 */
export function thinkingBlocksOf(
  details: readonly ReasoningDetail[] | undefined,
): (ThinkingBlockParam | RedactedThinkingBlockParam)[] {
  return (details ?? []).flatMap((detail): (ThinkingBlockParam | RedactedThinkingBlockParam)[] => {
    if (detail.format !== 'anthropic') return [];
    if (detail.type === 'reasoning.text' && detail.signature != null && detail.signature !== '') {
      return [{ type: 'thinking', thinking: detail.text, signature: detail.signature }];
    }
    if (detail.type === 'reasoning.encrypted')
      return [{ type: 'redacted_thinking', data: detail.data }];
    return [];
  });
}

/**
 * Whether the conversation continues a tool call whose thinking is missing. With thinking on,
 * Anthropic requires the last assistant turn, when it called tools, to begin with the thinking
 * that led to the calls; a client that did not keep `reasoning_details` cannot give it back.
 */
export function continuesUnsignedToolUse(turns: readonly MessageParam[]): boolean {
  const last = turns.findLast((turn) => turn.role === 'assistant');
  if (last === undefined || !last.content.some((block) => block.type === 'tool_use')) {
    return false;
  }
  const first = last.content[0]?.type;
  return first !== 'thinking' && first !== 'redacted_thinking';
}

/** A setting Anthropic refuses beside thinking: the parameter to name, and why. */
export interface ThinkingConflict {
  readonly param: string;
  readonly message: string;
}

const TURN_OFF = 'or send `reasoning_effort: "none"` to answer without thinking.';

/**
 * The first setting of `body` that Anthropic refuses with thinking on: a temperature other
 * than 1, a `top_p` below 0.95, or a tool choice that forces a tool (`tool_choice` `required`
 * or a named function, and JSON mode, which forces its answer tool). Each is the client's
 * explicit wish, as is the reasoning: neither is dropped, the client chooses.
 */
export function thinkingConflictOf(
  body: MessagesRequest,
  jsonTool: string | undefined,
): ThinkingConflict | undefined {
  if (body.temperature !== undefined && body.temperature !== 1) {
    return {
      param: 'temperature',
      message: `Anthropic models think only at temperature 1: leave out \`temperature\`, ${TURN_OFF}`,
    };
  }
  if (body.top_p !== undefined && body.top_p < 0.95) {
    return {
      param: 'top_p',
      message: `Anthropic models think only with \`top_p\` from 0.95 to 1: leave it out, ${TURN_OFF}`,
    };
  }
  const choice = body.tool_choice?.type;
  if (choice === 'any' || choice === 'tool') {
    return jsonTool === undefined
      ? {
          param: 'tool_choice',
          message: `Anthropic models cannot be made to call a tool while they think: use \`tool_choice: "auto"\`, ${TURN_OFF}`,
        }
      : {
          param: 'response_format',
          message: `Anthropic models answer in JSON through a forced tool call, which thinking does not allow: leave out \`response_format\`, ${TURN_OFF}`,
        };
  }
  return undefined;
}
