import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { createUsageRecorder, type UsageCall, type UsageRecorder } from './usage.recorder.ts';

let t: TestApp;
let recorder: UsageRecorder;
beforeAll(async () => {
  t = await buildTestApp();
  recorder = createUsageRecorder(t.database);
});
afterAll(() => t?.close());

const call = (orgId: string, extra: Partial<UsageCall> = {}): UsageCall => ({
  orgId,
  userId: 'user-1',
  keyId: 'key-1',
  model: 'openai/gpt-4.1',
  provider: 'openai',
  promptTokens: 1200,
  completionTokens: 300,
  costMicroUsd: 4800,
  latencyMs: 850,
  status: 200,
  ...extra,
});

const rows = (orgId: string) =>
  t.database.db.selectFrom('usage_records').selectAll().where('org_id', '=', orgId).execute();

test('one row per call, total tokens defaulting to prompt + completion, reasoning tokens to 0', async () => {
  const orgId = await t.fixtures.org();
  const before = Date.now();
  await recorder.record(call(orgId));
  await recorder.record(
    call(orgId, { at: 1_800_000_000_000, totalTokens: 1600, reasoningTokens: 120, status: 502 }),
  );
  const all = await rows(orgId);
  const first = all.find((row) => row.status === 200);
  const second = all.find((row) => row.status === 502);
  expect(all).toHaveLength(2);
  expect(first).toMatchObject({
    org_id: orgId,
    user_id: 'user-1',
    key_id: 'key-1',
    model: 'openai/gpt-4.1',
    provider: 'openai',
    prompt_tokens: 1200,
    completion_tokens: 300,
    reasoning_tokens: 0,
    total_tokens: 1500,
    cost_micro_usd: 4800,
    latency_ms: 850,
    status: 200,
  });
  expect(first?.at).toBeGreaterThanOrEqual(before);
  expect(first?.at).toBeLessThanOrEqual(Date.now());
  expect(second).toMatchObject({
    at: 1_800_000_000_000,
    total_tokens: 1600,
    reasoning_tokens: 120,
    status: 502,
  });
  expect(first?.id).not.toBe(second?.id);
});

test.each<[string, Partial<UsageCall>]>([
  ['a negative count', { promptTokens: -1 }],
  ['a fractional reasoning count', { reasoningTokens: 2.5 }],
  ['a fractional count', { completionTokens: 1.5 }],
  ['a fractional cost', { costMicroUsd: 0.25 }],
  ['a negative latency', { latencyMs: -3 }],
  ['an unsafe integer', { totalTokens: 2 ** 53 }],
  ['a non-finite time', { at: Number.NaN }],
  ['an empty key id', { keyId: '' }],
  ['a status that is not HTTP', { status: 42 }],
])('%s is refused and nothing is written', async (_name, extra) => {
  const orgId = await t.fixtures.org();
  await expect(recorder.record(call(orgId, extra))).rejects.toThrow(RangeError);
  expect(await rows(orgId)).toEqual([]);
});

test('calls share a write: queued until the delay ends, a full batch, or close', async () => {
  const orgId = await t.fixtures.org();
  const batched = createUsageRecorder(t.database, { maxDelayMs: 60_000, maxBatch: 2 });
  const settled: number[] = [];
  const pending = [1, 2, 3].map((n) =>
    batched.record(call(orgId, { latencyMs: n })).then(() => settled.push(n)),
  );
  // The first two filled a batch and are written at once; the third waits for more company.
  await Promise.all(pending.slice(0, 2));
  expect((await rows(orgId)).map((row) => row.latency_ms).sort()).toEqual([1, 2]);
  expect(settled).toEqual([1, 2]);
  await batched.close();
  await pending[2];
  expect((await rows(orgId)).map((row) => row.latency_ms).sort()).toEqual([1, 2, 3]);
});

test('many calls at once are each written once', async () => {
  const orgId = await t.fixtures.org();
  await Promise.all(
    Array.from({ length: 1200 }, (_, n) => recorder.record(call(orgId, { latencyMs: n }))),
  );
  const written = await rows(orgId);
  expect(written).toHaveLength(1200);
  expect(new Set(written.map((row) => row.latency_ms)).size).toBe(1200);
});
