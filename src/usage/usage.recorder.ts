import type { Database } from '../db/database.ts';
import { newRowId } from '../db/row-id.ts';
import { createUsageRepository } from './usage.repository.ts';

/** One call of the chat interface (`/v1`), as the gateway reports it. */
export interface UsageCall {
  /** When the call was made, milliseconds since the epoch; default: now. */
  readonly at?: number | undefined;
  readonly orgId: string;
  readonly userId: string;
  readonly keyId: string;
  /** The model that answered (for the router, the one it chose), e.g. `openai/gpt-4.1`. */
  readonly model: string;
  readonly provider: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Default: prompt + completion tokens. */
  readonly totalTokens?: number | undefined;
  /** Millionths of a US dollar (usage.cost.ts computes it from the model's prices). */
  readonly costMicroUsd: number;
  readonly latencyMs: number;
  /** The HTTP status the caller got. */
  readonly status: number;
}

export interface UsageRecorder {
  /**
   * Writes one row for the call and settles once it is committed and durable. A call that is
   * not a valid record (a negative or fractional count, an empty id) is a programming error:
   * RangeError, nothing written.
   *
   * @example
   * await usage.record({ orgId, userId, keyId, model: 'openai/gpt-4.1', provider: 'openai',
   *   promptTokens: 1200, completionTokens: 300, costMicroUsd: 4800, latencyMs: 850, status: 200 });
   */
  record(call: UsageCall): Promise<void>;
}

export function createUsageRecorder(database: Database): UsageRecorder {
  const repository = createUsageRepository(database.db);
  return {
    async record(call) {
      const promptTokens = count(call.promptTokens, 'promptTokens');
      const completionTokens = count(call.completionTokens, 'completionTokens');
      const row = {
        id: newRowId(),
        at: count(call.at ?? Date.now(), 'at'),
        org_id: text(call.orgId, 'orgId'),
        user_id: text(call.userId, 'userId'),
        key_id: text(call.keyId, 'keyId'),
        model: text(call.model, 'model'),
        provider: text(call.provider, 'provider'),
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: count(call.totalTokens ?? promptTokens + completionTokens, 'totalTokens'),
        cost_micro_usd: count(call.costMicroUsd, 'costMicroUsd'),
        latency_ms: count(call.latencyMs, 'latencyMs'),
        status: httpStatus(call.status),
      };
      await database.write((trx) => repository.insert(row, trx));
    },
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
