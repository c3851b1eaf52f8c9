import type { Database } from '../db/database.ts';
import { newRowId } from '../db/row-id.ts';
import type { KeyHolder } from '../keys/index.ts';
import { createUsageRepository, type NewUsageRecordRow } from './usage.repository.ts';

/**
 * One call of the chat interface (`/v1`), as the gateway reports it: who made it (the API key's
 * organization, user and key), and what it cost.
 */
export interface UsageCall extends Pick<KeyHolder, 'orgId' | 'userId' | 'keyId'> {
  /** When the call was made, milliseconds since the epoch; default: now. */
  readonly at?: number | undefined;
  /** The model that answered (for the router, the one it chose), e.g. `openai/gpt-4.1`. */
  readonly model: string;
  readonly provider: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Of the completion tokens, those a reasoning model spent thinking. Default 0. */
  readonly reasoningTokens?: number | undefined;
  /** Default: prompt + completion tokens. */
  readonly totalTokens?: number | undefined;
  /**
   * Millionths of a US dollar (usage.cost.ts computes it from the model's prices); null when the
   * model has no price, and the cost is not known.
   */
  readonly costMicroUsd: number | null;
  readonly latencyMs: number;
  /** The HTTP status the caller got. */
  readonly status: number;
  /**
   * A client's call (`chat`, the default), or the extraction call the gateway made after one to
   * learn memories from it (`extraction`, docs/memory-chat.md).
   */
  readonly kind?: UsageKind | undefined;
}

export type UsageKind = 'chat' | 'extraction';

export interface UsageRecorder {
  /**
   * Queues one row for the call and settles once the batch holding it is committed and
   * durable. A call that is not a valid record (a negative or fractional count, an empty id) is
   * a programming error: RangeError, nothing written.
   *
   * @example
   * await usage.record({ orgId, userId, keyId, model: 'openai/gpt-4.1', provider: 'openai',
   *   promptTokens: 1200, completionTokens: 300, costMicroUsd: 4800, latencyMs: 850, status: 200 });
   */
  record(call: UsageCall): Promise<void>;
  /** Writes what is queued and stops the timer: call it before the store closes. */
  close(): Promise<void>;
}

export interface UsageRecorderOptions {
  /**
   * How long a row may wait for others to share its write. Default 50 ms: one gateway process
   * at full load then writes a few hundred rows per commit instead of syncing once per call.
   */
  readonly maxDelayMs?: number;
  /** Rows per INSERT; more wait for the next one. Default 500. */
  readonly maxBatch?: number;
}

interface Queued {
  readonly row: NewUsageRecordRow;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Records the calls of the chat interface in batches: one multi-row INSERT in one transaction
 * for every call that finished within `maxDelayMs` of the first, each call's promise settling
 * when its batch is durable. A call waits at most that long, and `close()` writes the rest.
 */
export function createUsageRecorder(
  database: Database,
  options: UsageRecorderOptions = {},
): UsageRecorder {
  const repository = createUsageRepository(database.db);
  const maxDelayMs = options.maxDelayMs ?? 50;
  const maxBatch = options.maxBatch ?? 500;
  let queue: Queued[] = [];
  let timer: NodeJS.Timeout | undefined;
  /** Batches are written one after another, in the order their calls finished. */
  let writing: Promise<void> = Promise.resolve();

  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const batch = queue;
    queue = [];
    if (batch.length === 0) return writing;
    writing = writing.then(() => write(batch));
    return writing;
  };

  async function write(batch: readonly Queued[]): Promise<void> {
    for (let at = 0; at < batch.length; at += maxBatch) {
      const part = batch.slice(at, at + maxBatch);
      try {
        await database.write((trx) =>
          repository.insertMany(
            part.map((queued) => queued.row),
            trx,
          ),
        );
        for (const queued of part) queued.resolve();
      } catch (error) {
        for (const queued of part) queued.reject(error);
      }
    }
  }

  return {
    record(call) {
      let row: NewUsageRecordRow;
      try {
        row = rowOf(call);
      } catch (error) {
        return Promise.reject(error);
      }
      return new Promise<void>((resolve, reject) => {
        queue.push({ row, resolve, reject });
        if (queue.length >= maxBatch) void flush();
        else if (timer === undefined) timer = setTimeout(flush, maxDelayMs);
      });
    },
    close: () => flush(),
  };
}

function rowOf(call: UsageCall): NewUsageRecordRow {
  const promptTokens = count(call.promptTokens, 'promptTokens');
  const completionTokens = count(call.completionTokens, 'completionTokens');
  return {
    id: newRowId(),
    at: count(call.at ?? Date.now(), 'at'),
    org_id: text(call.orgId, 'orgId'),
    user_id: text(call.userId, 'userId'),
    key_id: text(call.keyId, 'keyId'),
    model: text(call.model, 'model'),
    provider: text(call.provider, 'provider'),
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    reasoning_tokens: count(call.reasoningTokens ?? 0, 'reasoningTokens'),
    total_tokens: count(call.totalTokens ?? promptTokens + completionTokens, 'totalTokens'),
    cost_micro_usd: call.costMicroUsd === null ? null : count(call.costMicroUsd, 'costMicroUsd'),
    kind: call.kind ?? 'chat',
    latency_ms: count(call.latencyMs, 'latencyMs'),
    status: httpStatus(call.status),
  };
}

function count(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`usage record: ${name} must be a non-negative integer, not ${value}`);
  }
  return value;
}

function text(value: string, name: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new RangeError(`usage record: ${name} must be a non-empty string`);
  }
  return value;
}

function httpStatus(value: number): number {
  if (!Number.isInteger(value) || value < 100 || value > 599) {
    throw new RangeError(`usage record: status must be an HTTP status code, not ${value}`);
  }
  return value;
}
