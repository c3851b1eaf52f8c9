/**
 * Property: usage totals equal the sum of the recorded calls, for each grouping. For
 * random calls (users, keys, models, times in and around the range, another organization's),
 * each viewer's report holds exactly the calls in [from, to) it may see, summed per group, and
 * the groups add up to the totals; micro-dollars are compared as integers.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { MemberRole } from '../db/tables.ts';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { DAY_MS, utcDay } from './usage.range.ts';
import { createUsageRecorder, type UsageRecorder } from './usage.recorder.ts';
import { GROUPINGS } from './usage.schemas.ts';

const START = Date.parse('2026-01-01T00:00:00Z');
// Code-unit order differs from a locale's here: upper case first, `,` and `"` to escape.
const MODELS = ['openai/gpt-4.1', 'anthropic/claude', 'Zeta/z', 'odd,"model"', 'é/model'];
const KEYS = [
  '0190a000-0000-7000-8000-00000000000a',
  '0190a000-0000-7000-8000-00000000000b',
  '0190a000-0000-7000-8000-00000000000c',
];
const ROLES: MemberRole[] = ['owner', 'admin', 'member', 'member'];

let t: TestApp;
let recorder: UsageRecorder;
let people: { id: string; token: string }[];
let otherOrg: string;
beforeAll(async () => {
  t = await buildTestApp();
  recorder = createUsageRecorder(t.database);
  people = await Promise.all(ROLES.map(() => t.fixtures.user()));
  otherOrg = await t.fixtures.org();
});
afterAll(() => t?.close());

interface Figures {
  requests: number;
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  totalTokens: number;
  /** The known costs' sum. */
  costMicroUsd: number;
  unpricedRequests: number;
}

const world = fc
  .record({
    from: fc.integer({ min: START, max: START + 60 * DAY_MS }),
    length: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 6 * DAY_MS })),
    midnight: fc.boolean(),
  })
  .map(({ from, length, midnight }) => {
    const start = midnight ? from - (from % DAY_MS) : from;
    return { from: start, to: start + length };
  })
  .chain((range) =>
    fc.record({
      range: fc.constant(range),
      calls: fc.array(
        fc.record({
          person: fc.nat(ROLES.length - 1),
          inOtherOrg: fc.nat(9).map((n) => n < 3),
          key: fc.constantFrom(...KEYS),
          model: fc.constantFrom(...MODELS),
          at: fc.oneof(
            fc.constantFrom(range.from, range.to, range.from - 1, range.to - 1),
            fc.integer({ min: range.from - DAY_MS, max: range.to + DAY_MS }),
          ),
          promptTokens: fc.nat(200_000),
          completionTokens: fc.nat(50_000),
          // Of the completion tokens: a reasoning model's thinking.
          reasoningShare: fc.double({ min: 0, max: 1, noNaN: true }),
          kind: fc.constantFrom('chat' as const, 'extraction' as const),
          extraTokens: fc.option(fc.nat(1000), { nil: undefined }),
          // null: a model without a price, whose cost is not known.
          costMicroUsd: fc.option(fc.nat(5_000_000), { nil: null, freq: 4 }),
        }),
        { maxLength: 30 },
      ),
    }),
  );

test('usage totals equal the sum of recorded calls for each grouping', async () => {
  await fc.assert(
    fc.asyncProperty(world, async ({ range, calls }) => {
      const orgId = await t.fixtures.org();
      await Promise.all(people.map((person, i) => t.fixtures.member(orgId, person.id, ROLES[i])));
      const recorded = calls.map((c) => ({
        orgId: c.inOtherOrg ? otherOrg : orgId,
        userId: people[c.person]?.id ?? '',
        keyId: c.key,
        model: c.model,
        provider: c.model.split('/')[0] ?? 'p',
        promptTokens: c.promptTokens,
        completionTokens: c.completionTokens,
        reasoningTokens: Math.floor(c.completionTokens * c.reasoningShare),
        totalTokens:
          c.extraTokens === undefined
            ? undefined
            : c.promptTokens + c.completionTokens + c.extraTokens,
        costMicroUsd: c.costMicroUsd,
        latencyMs: 100,
        status: 200,
        at: c.at,
        kind: c.kind,
      }));
      await Promise.all(recorded.map((call) => recorder.record(call)));

      const query = `from=${new Date(range.from).toISOString()}&to=${new Date(range.to).toISOString()}`;
      // Owner, admin and a member (whose colleague's calls are not theirs to see).
      for (const viewer of [0, 1, 2]) {
        const me = people[viewer];
        if (!me) throw new Error('no viewer');
        const visible = recorded.filter(
          (c) =>
            c.orgId === orgId &&
            c.at >= range.from &&
            c.at < range.to &&
            (ROLES[viewer] !== 'member' || c.userId === me.id),
        );
        for (const groupBy of GROUPINGS) {
          const res = await t.request(
            { token: me.token, orgId },
            { method: 'GET', url: `/api/v1/usage?${query}&groupBy=${groupBy}` },
          );
          expect(res.statusCode).toBe(200);
          const body = res.json();

          const keyOf = (c: (typeof visible)[number]) =>
            groupBy === 'day'
              ? utcDay(Math.floor(c.at / DAY_MS))
              : groupBy === 'model'
                ? c.model
                : groupBy === 'kind'
                  ? c.kind
                  : c.keyId;
          const expected = new Map<string, Figures>();
          for (const c of visible) {
            const sums = expected.get(keyOf(c)) ?? zero();
            add(sums, c);
            expected.set(keyOf(c), sums);
          }
          const totals = zero();
          for (const c of visible) add(totals, c);
          const keys = [...expected.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

          expect(body).toEqual({
            from: new Date(range.from).toISOString(),
            to: new Date(range.to).toISOString(),
            groupBy,
            totals: shown(totals),
            groups: keys.map((key) => ({ key, ...shown(expected.get(key) ?? zero()) })),
          });
          // The groups add up to the totals, micro-dollars as integers.
          const micro = (usd: number) => Math.round(usd * 1_000_000);
          const groups = body.groups as (Omit<Figures, 'costMicroUsd'> & {
            costUsd: number | null;
          })[];
          expect(groups.reduce((sum, g) => sum + micro(g.costUsd ?? 0), 0)).toBe(
            micro(body.totals.costUsd ?? 0),
          );
          expect(micro(body.totals.costUsd ?? 0)).toBe(totals.costMicroUsd);
          for (const figure of [
            'requests',
            'promptTokens',
            'completionTokens',
            'reasoningTokens',
            'totalTokens',
            'unpricedRequests',
          ] as const) {
            expect(groups.reduce((sum, g) => sum + g[figure], 0)).toBe(body.totals[figure]);
          }
        }
      }
    }),
    { numRuns: 25 },
  );
});

function zero(): Figures {
  return {
    requests: 0,
    promptTokens: 0,
    completionTokens: 0,
    reasoningTokens: 0,
    totalTokens: 0,
    costMicroUsd: 0,
    unpricedRequests: 0,
  };
}

function add(
  sums: Figures,
  call: {
    promptTokens: number;
    completionTokens: number;
    reasoningTokens: number;
    totalTokens: number | undefined;
    costMicroUsd: number | null;
  },
): void {
  sums.requests += 1;
  sums.promptTokens += call.promptTokens;
  sums.completionTokens += call.completionTokens;
  sums.reasoningTokens += call.reasoningTokens;
  sums.totalTokens += call.totalTokens ?? call.promptTokens + call.completionTokens;
  if (call.costMicroUsd === null) sums.unpricedRequests += 1;
  else sums.costMicroUsd += call.costMicroUsd;
}

/** Unknown costs are left out of the sum and counted; with nothing known, the cost is null. */
function shown({ costMicroUsd, ...counts }: Figures) {
  const noneKnown = counts.requests > 0 && counts.unpricedRequests === counts.requests;
  return { ...counts, costUsd: noneKnown ? null : costMicroUsd / 1_000_000 };
}
