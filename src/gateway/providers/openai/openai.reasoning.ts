import type { ChatMessage, ReasoningDetail } from '../../chat.schemas.ts';
import type { ChatCompletionMessage, ChatDelta } from '../../provider.ts';

/** The `format` of the reasoning pieces an OpenAI-compatible upstream wrote. */
const FORMAT = 'openai';

/**
 * The upstream's reasoning in the gateway's words. Compatible servers spell the text
 * differently: `reasoning` (OpenRouter, vLLM 0.9 and later, Ollama) or `reasoning_content`
 * (DeepSeek, older vLLM, LiteLLM); either becomes `reasoning`, and `reasoning_content` is
 * removed (the chat route writes it back, once, for every provider). `reasoning_details`
 * (OpenRouter) pass through, marked as this kind's where the upstream named no format. A
 * `null` or empty reasoning is no reasoning: the field is left out, so an answer without
 * reasoning has no reasoning field at all.
 */
export function reasoningFromUpstream<T extends ChatCompletionMessage | ChatDelta>(message: T): T {
  const wire = message as T & { reasoning?: unknown; reasoning_content?: unknown };
  const text = nonEmpty(wire.reasoning) ?? nonEmpty(wire.reasoning_content);
  delete wire.reasoning;
  delete wire.reasoning_content;
  if (text !== undefined) wire.reasoning = text;
  const details = wire.reasoning_details as unknown;
  if (Array.isArray(details) && details.length > 0) {
    wire.reasoning_details = details.map((detail: ReasoningDetail) => ({
      ...detail,
      format: detail.format || FORMAT,
    }));
  } else {
    delete wire.reasoning_details;
  }
  return message;
}

const nonEmpty = (value: unknown) =>
  typeof value === 'string' && value !== '' ? value : undefined;

/**
 * The conversation as an OpenAI-compatible upstream takes it. An assistant turn keeps the
 * reasoning pieces this kind wrote (`format: "openai"`, which OpenRouter wants back) and loses
 * every other kind's. Its reasoning text is not sent back, as OpenAI's own API and stricter
 * servers refuse fields they do not know — except on a turn that called tools, as
 * `reasoning_content`: DeepSeek's thinking mode refuses the next request without it, and such a
 * turn cannot come from OpenAI's own API (which gives no reasoning text); a turn whose pieces
 * were all written by another kind came from another provider, and keeps its text to itself.
 */
export function reasoningToUpstream(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.map((message) => {
    if (message.role !== 'assistant') return message;
    const { reasoning, reasoning_content, reasoning_details, ...rest } = message;
    const ours = (reasoning_details ?? []).filter((detail) => detail.format === FORMAT);
    const anotherKinds = ours.length === 0 && (reasoning_details ?? []).length > 0;
    const text = reasoning_content || reasoning;
    return {
      ...rest,
      ...(ours.length > 0 && { reasoning_details: ours }),
      ...(text &&
        (rest.tool_calls?.length ?? 0) > 0 &&
        !anotherKinds && { reasoning_content: text }),
    };
  });
}
