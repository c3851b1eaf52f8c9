import type { ChatMessage, ChatRequest } from '../chat.schemas.ts';
import type { ChatChunk, ChatCompletionMessage, ChatUsage } from '../provider.ts';

/**
 * Token counts when no provider gave one: `ceil(characters / 4)`, OpenAI's rule of thumb for
 * English text. Used to decide whether a prompt fits a model's context window, and for usage
 * that a provider never reported (a stream the client cut short).
 */
export const tokensOfChars = (chars: number) => Math.ceil(chars / 4);
export const estimateTokens = (text: string) => tokensOfChars(text.length);

/**
 * What an image costs in the prompt, roughly: OpenAI bills a high-detail 1024×1024 image at
 * 765 tokens, Anthropic about (width × height) / 750 ≈ 1,400; the larger keeps the router safe.
 */
const IMAGE_TOKENS = 1_500;

/** The prompt's size: every message's text, every image, and the tool definitions. */
export function estimatePromptTokens(request: ChatRequest): number {
  let tokens = 0;
  for (const message of request.messages) tokens += messageTokens(message);
  if (request.tools) tokens += estimateTokens(JSON.stringify(request.tools));
  return tokens;
}

function messageTokens(message: ChatMessage): number {
  // A few tokens of framing per message, as every chat format adds.
  let tokens = 4;
  const { content } = message;
  if (typeof content === 'string') tokens += estimateTokens(content);
  else if (Array.isArray(content)) {
    for (const part of content) {
      if (part.type === 'text') tokens += estimateTokens(part.text);
      else if (part.type === 'refusal') tokens += estimateTokens(part.refusal);
      else tokens += IMAGE_TOKENS;
    }
  }
  if (message.role === 'assistant') {
    for (const call of message.tool_calls ?? []) {
      tokens += estimateTokens(call.function.name + call.function.arguments);
    }
  }
  return tokens;
}

/** Characters of answer a chunk carries: its text and its tool calls' argument pieces. */
export function deltaChars(chunk: ChatChunk): number {
  let chars = 0;
  for (const choice of chunk.choices) {
    chars += choice.delta.content?.length ?? 0;
    for (const call of choice.delta.tool_calls ?? [])
      chars += call.function?.arguments?.length ?? 0;
  }
  return chars;
}

/** Characters of a whole answer's message: its text and its tool calls' arguments. */
export function messageChars(message: ChatCompletionMessage | undefined): number {
  let chars = message?.content?.length ?? 0;
  for (const call of message?.tool_calls ?? []) chars += call.function.arguments.length;
  return chars;
}

/** Usage no provider reported: the prompt's estimate, and `completionChars` of answer. */
export function estimatedUsage(request: ChatRequest, completionChars: number): ChatUsage {
  const prompt = estimatePromptTokens(request);
  const completion = tokensOfChars(completionChars);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
}
