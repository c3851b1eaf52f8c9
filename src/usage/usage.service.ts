import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.ts';
import type { Caller } from '../tenancy/index.ts';
import { type UsageRange, utcDay } from './usage.range.ts';
import {
  createUsageRepository,
  type UsageGrouping,
  type UsageGroupSums,
  type UsageRecordRow,
  type UsageSums,
  type UsageVisibility,
} from './usage.repository.ts';
import type { UsageReport } from './usage.schemas.ts';

/** Calls read per query of an export. */
export const EXPORT_PAGE_SIZE = 1000;

/** docs/design.md: members see their own usage, owners and admins the organization's. */
export function visibilityOf(caller: Pick<Caller, 'orgId' | 'userId' | 'role'>): UsageVisibility {
  return {
    orgId: caller.orgId,
    userId: caller.role === 'member' ? caller.userId : undefined,
  };
}

export function createUsageService(db: Kysely<Tables>) {
  const repository = createUsageRepository(db);
  return {
    /**
     * The caller's usage in the range, summed per group in SQL. The totals are the sum of the
     * groups, which partition the calls: one read, so they always agree.
     */
    async report(caller: Caller, range: UsageRange, grouping: UsageGrouping): Promise<UsageReport> {
      const sums = await repository.sumBy(visibilityOf(caller), range, grouping);
      const groups = sums
        .map((sum) => ({
          key: grouping === 'day' ? utcDay(Number(sum.group)) : String(sum.group),
          sum,
        }))
        // By code unit, as the same on every engine (SQL collations differ); `YYYY-MM-DD` in
        // that order is chronological.
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
        .map(({ key, sum }) => ({ key, ...figures(sum) }));
      return {
        from: new Date(range.from).toISOString(),
        to: new Date(range.to).toISOString(),
        groupBy: grouping,
        totals: figures(addUp(sums)),
        groups,
      };
    },

    /** The caller's calls in the range, oldest first, a page at a time. */
    async *records(caller: Caller, range: UsageRange): AsyncGenerator<UsageRecordRow[]> {
      const visibility = visibilityOf(caller);
      let after: UsageRecordRow | undefined;
      for (;;) {
        const page = await repository.page(visibility, range, after, EXPORT_PAGE_SIZE);
        if (page.length > 0) yield page;
        if (page.length < EXPORT_PAGE_SIZE) return;
        after = page[page.length - 1];
      }
    },
  };
}

export type UsageService = ReturnType<typeof createUsageService>;

function addUp(groups: readonly UsageGroupSums[]): UsageSums {
  const sums = {
    requests: 0,
    promptTokens: 0,
    completionTokens: 0,
    reasoningTokens: 0,
    totalTokens: 0,
    costMicroUsd: 0,
    unpricedRequests: 0,
  };
  for (const group of groups) {
    sums.requests += group.requests;
    sums.promptTokens += group.promptTokens;
    sums.completionTokens += group.completionTokens;
    sums.reasoningTokens += group.reasoningTokens;
    sums.totalTokens += group.totalTokens;
    sums.costMicroUsd += group.costMicroUsd;
    sums.unpricedRequests += group.unpricedRequests;
  }
  return sums;
}

/**
 * The figures of an answer: micro-dollars become dollars here, with one division. The cost is
 * that of the calls with a price, and says how many had none; calls that all had none have an
 * unknown cost (null), never $0.
 */
function figures(sums: UsageSums) {
  const noneKnown = sums.requests > 0 && sums.unpricedRequests === sums.requests;
  return {
    requests: sums.requests,
    promptTokens: sums.promptTokens,
    completionTokens: sums.completionTokens,
    reasoningTokens: sums.reasoningTokens,
    totalTokens: sums.totalTokens,
    costUsd: noneKnown ? null : sums.costMicroUsd / 1_000_000,
    unpricedRequests: sums.unpricedRequests,
  };
}
