import { type Insertable, type Kysely, type RawBuilder, type Selectable, sql } from 'kysely';
import type { Tables, UsageRecordsTable } from '../db/tables.ts';
import { DAY_MS, type UsageRange } from './usage.range.ts';

export type UsageRecordRow = Selectable<UsageRecordsTable>;
export type NewUsageRecordRow = Insertable<UsageRecordsTable>;

/** Whose calls a read covers: an organization's, or one member's in it. */
export interface UsageVisibility {
  readonly orgId: string;
  /** Only this user's calls; undefined: every call of the organization. */
  readonly userId: string | undefined;
}

export type UsageGrouping = 'day' | 'model' | 'key' | 'kind';

/** Sums over some calls; costs in integer millionths of a dollar, so sums are exact. */
export interface UsageSums {
  readonly requests: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Of the completion tokens, those reasoning models spent thinking. */
  readonly reasoningTokens: number;
  readonly totalTokens: number;
  /** The sum of the costs that are known: calls of a model without a price are not in it. */
  readonly costMicroUsd: number;
  /** Calls whose cost is not known (their model had no price). */
  readonly unpricedRequests: number;
}

/** One group's sums; `group` is the UTC day number (days since the epoch), the model or key id. */
export interface UsageGroupSums extends UsageSums {
  readonly group: number | string;
}

/** Where a page of calls ends: the next page starts after this (at, id). */
export interface UsageRecordPosition {
  readonly at: number;
  readonly id: string;
}

// The day of a call, computed in SQL the same way on both engines: `at` is an integer, so
// division truncates (at >= 0). Written into the text, not bound: PostgreSQL matches the
// grouped expression of the select list to GROUP BY's only when they are the same text.
const dayNumber = sql<number>`${sql.ref('at')} / ${sql.raw(String(DAY_MS))}`;
const GROUP_EXPRESSIONS: Record<UsageGrouping, RawBuilder<number | string>> = {
  day: dayNumber,
  model: sql<string>`${sql.ref('model')}`,
  key: sql<string>`${sql.ref('key_id')}`,
  kind: sql<string>`${sql.ref('kind')}`,
};

// PostgreSQL's sum of bigint is numeric, which pg hands over as a string: back to bigint
// (read as a number, database.ts). SQLite's sum of integers is an integer already.
const total = (
  column:
    | 'prompt_tokens'
    | 'completion_tokens'
    | 'reasoning_tokens'
    | 'total_tokens'
    | 'cost_micro_usd',
) => sql<number>`cast(sum(${sql.ref(column)}) as bigint)`;

/**
 * The usage store's queries. Each read names whose calls it covers and a half-open time range,
 * which the (org_id, at) index serves.
 */
export function createUsageRepository(db: Kysely<Tables>) {
  const inRange = (visibility: UsageVisibility, range: UsageRange) => {
    const { userId } = visibility;
    const calls = db
      .selectFrom('usage_records')
      .where('org_id', '=', visibility.orgId)
      .where('at', '>=', range.from)
      .where('at', '<', range.to);
    return userId === undefined ? calls : calls.where('user_id', '=', userId);
  };

  return {
    /** Recorded calls, in one INSERT. Pass a write's transaction as `executor`. */
    async insertMany(
      rows: readonly NewUsageRecordRow[],
      executor: Kysely<Tables> = db,
    ): Promise<void> {
      if (rows.length > 0) await executor.insertInto('usage_records').values(rows).execute();
    },

    /** Sums per group, in no particular order; groups without calls are absent. */
    async sumBy(
      visibility: UsageVisibility,
      range: UsageRange,
      grouping: UsageGrouping,
    ): Promise<UsageGroupSums[]> {
      const group = GROUP_EXPRESSIONS[grouping];
      const rows = await inRange(visibility, range)
        .select([
          group.as('group'),
          sql<number>`count(*)`.as('requests'),
          total('prompt_tokens').as('prompt_tokens'),
          total('completion_tokens').as('completion_tokens'),
          total('reasoning_tokens').as('reasoning_tokens'),
          total('total_tokens').as('total_tokens'),
          total('cost_micro_usd').as('cost_micro_usd'),
          // count(column) counts the rows where it is not null: the calls with a known cost.
          sql<number>`count(*) - count(${sql.ref('cost_micro_usd')})`.as('unpriced_requests'),
        ])
        .groupBy(group)
        .execute();
      return rows.map((row) => ({
        group: row.group,
        requests: Number(row.requests),
        promptTokens: Number(row.prompt_tokens),
        completionTokens: Number(row.completion_tokens),
        reasoningTokens: Number(row.reasoning_tokens),
        totalTokens: Number(row.total_tokens),
        // sum() of no known cost is null: nothing known adds up to 0 here, and the calls are
        // counted as unpriced.
        costMicroUsd: Number(row.cost_micro_usd ?? 0),
        unpricedRequests: Number(row.unpriced_requests),
      }));
    },

    /**
     * Up to `limit` calls in (at, id) order, after `after` when given: keyset paging, so a long
     * range is read a page at a time, each page an index range scan.
     */
    page(
      visibility: UsageVisibility,
      range: UsageRange,
      after: UsageRecordPosition | undefined,
      limit: number,
    ): Promise<UsageRecordRow[]> {
      const calls = inRange(visibility, range).selectAll();
      const rest =
        after === undefined
          ? calls
          : calls.where((eb) =>
              eb.or([
                eb('at', '>', after.at),
                eb.and([eb('at', '=', after.at), eb('id', '>', after.id)]),
              ]),
            );
      return rest.orderBy('at').orderBy('id').limit(limit).execute();
    },
  };
}

export type UsageRepository = ReturnType<typeof createUsageRepository>;
