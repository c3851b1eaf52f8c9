import type { FastifyBaseLogger } from 'fastify';
import type { KeyHolder } from '../keys/index.ts';
import type { UsageKind, UsageRecorder } from '../usage/index.ts';
import { costMicroUsd } from '../usage/index.ts';
import type { ModelConfig } from './catalog.ts';
import type { ChatRequest } from './chat.schemas.ts';
import type { ChatChunk, ChatUsage } from './provider.ts';
import { deltaChars, estimatedUsage } from './providers/token-estimate.ts';

export interface FinishedCall {
  /** Who made the call: the API key's organization, user and key. */
  readonly caller: KeyHolder;
  /**
   * The model that answered, or that was tried last when none did; none when the call was
   * refused before a model was chosen, and then nothing is recorded.
   */
  readonly model: ModelConfig | undefined;
  /** The provider's counts; none when it reported none (a failed call: zero tokens). */
  readonly usage: ChatUsage | undefined;
  /** What the caller got; 499 when the caller went away first. */
  readonly status: number;
  /** `Date.now()` when the call arrived. */
  readonly startedAt: number;
  /** A client's call (default), or an extraction the gateway made after one. */
  readonly kind?: UsageKind | undefined;
}

/**
 * Records each finished call with its cost from the model's configured prices (unknown for a
 * model without them), after the answer
 * went out: the caller never waits on the store for it. A write that fails is logged, with the
 * call, so spend is never lost silently.
 *
 * @example
 * const usage = createCallUsage(recorder, app.log);
 * usage.finished({ caller, model, usage: completion.usage, status: 200, startedAt });
 */
export interface CallUsage {
  finished(call: FinishedCall): void;
}

export function createCallUsage(recorder: UsageRecorder, log: FastifyBaseLogger): CallUsage {
  return {
    finished({ caller, model, usage, status, startedAt, kind }) {
      if (model === undefined) return;
      const promptTokens = count(usage?.prompt_tokens);
      const completionTokens = count(usage?.completion_tokens);
      const row = {
        orgId: caller.orgId,
        userId: caller.userId,
        keyId: caller.keyId,
        at: startedAt,
        model: model.id,
        provider: model.provider,
        promptTokens,
        completionTokens,
        reasoningTokens: count(usage?.completion_tokens_details?.reasoning_tokens),
        totalTokens: count(usage?.total_tokens) || promptTokens + completionTokens,
        // A model without a price has calls of unknown cost: recorded as such, never as $0.
        costMicroUsd: model.price
          ? costMicroUsd(model.price, promptTokens, completionTokens)
          : null,
        latencyMs: Math.max(0, Date.now() - startedAt),
        status,
        kind: kind ?? 'chat',
      };
      recorder.record(row).catch((error: unknown) => {
        log.error({ err: error, usage: row }, 'usage of a chat call could not be recorded');
      });
    },
  };
}

/** A stream's chunks as they pass, and what they say of its usage. */
export interface StreamTally {
  /** The source's chunks, every one, unchanged. */
  readonly chunks: AsyncIterable<ChatChunk>;
  /**
   * The provider's usage; when the stream was cut before it came, an estimate: the prompt's,
   * and of what was passed on so far.
   */
  usage(): ChatUsage;
  /** The answer's text so far (its first choice's content), up to 8,000 characters. */
  text(): string;
}

/** What a stream's text is kept of: enough for an extraction to read the answer as context. */
const KEPT_TEXT_CHARS = 8000;

export function tallyStream(source: AsyncIterable<ChatChunk>, request: ChatRequest): StreamTally {
  let reported: ChatUsage | undefined;
  let chars = 0;
  let text = '';
  async function* chunks(): AsyncGenerator<ChatChunk> {
    for await (const chunk of source) {
      if (chunk.usage) reported = chunk.usage;
      chars += deltaChars(chunk);
      const content = chunk.choices[0]?.index === 0 ? chunk.choices[0].delta.content : undefined;
      if (typeof content === 'string' && text.length < KEPT_TEXT_CHARS) {
        text = (text + content).slice(0, KEPT_TEXT_CHARS);
      }
      yield chunk;
    }
  }
  return {
    chunks: chunks(),
    usage: () => reported ?? estimatedUsage(request, chars),
    text: () => text,
  };
}

/** A provider's count as a whole non-negative number; anything else counts as none. */
const count = (value: number | undefined) =>
  value !== undefined && Number.isSafeInteger(value) && value >= 0 ? value : 0;
