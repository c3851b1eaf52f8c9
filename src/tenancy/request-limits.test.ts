/**
 * The request budget of a subject whose credential carries its own limit (an app's): that
 * limit, held to the operator's ceiling as it is now, whatever the token says; the default for
 * every other subject.
 */
import type { FastifyReply } from 'fastify';
import { expect, test } from 'vitest';
import { createSlidingWindowLimiter } from '../platform/rate-limit.ts';
import { createRequestLimits } from './authenticate.ts';

function reply() {
  const headers: Record<string, string> = {};
  return {
    headers,
    reply: {
      headers: (h: Record<string, string>) => Object.assign(headers, h),
    } as unknown as FastifyReply,
  };
}

async function spend(count: (r: FastifyReply) => Promise<void>, times: number) {
  const outcomes: (number | string)[] = [];
  let policy = '';
  for (let i = 0; i < times; i++) {
    const r = reply();
    try {
      await count(r.reply);
      outcomes.push(200);
      policy = r.headers['ratelimit-policy'] ?? '';
    } catch (error) {
      outcomes.push((error as { status: number }).status);
    }
  }
  return { outcomes, policy };
}

test('a granted limit counts instead of the default, never above the ceiling', async () => {
  const at = 1_800_000_000_000;
  const limits = createRequestLimits({
    rateLimiter: createSlidingWindowLimiter({ limit: 2, now: () => at }),
    failedAuthLimiter: undefined,
    rateLimitCeiling: 4,
  });
  expect(await spend((r) => limits.count('default', r), 3)).toEqual({
    outcomes: [200, 200, 429],
    policy: '"credential";q=2;w=60',
  });
  expect(await spend((r) => limits.count('granted', r, 3), 4)).toEqual({
    outcomes: [200, 200, 200, 429],
    policy: '"credential";q=3;w=60',
  });
  // A token issued before the ceiling was lowered is held to the ceiling.
  expect(await spend((r) => limits.count('above', r, 100), 5)).toEqual({
    outcomes: [200, 200, 200, 200, 429],
    policy: '"credential";q=4;w=60',
  });
});
