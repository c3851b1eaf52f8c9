import { type Static, Type } from 'typebox';

export const GROUPINGS = ['day', 'model', 'key', 'kind'] as const;

/**
 * A bound's shape: a date, or a date and a time with its zone (RFC 3339's `full-date` or
 * `date-time`). That the date exists is the range's own rule (usage.range.ts).
 */
const INSTANT_PATTERN =
  '^\\d{4}-\\d{2}-\\d{2}([Tt]\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?([Zz]|[+-]\\d{2}:\\d{2}))?$';

/** What a bound that is no instant is answered (its field named). */
export const notAnInstant = (name: 'from' | 'to') =>
  `${name} must be a date (YYYY-MM-DD) or a date-time with a time zone (YYYY-MM-DDTHH:mm:ssZ)`;

const bound = (name: 'from' | 'to', description: string) =>
  Type.String({
    pattern: INSTANT_PATTERN,
    errorMessage: notAnInstant(name),
    description,
    examples: ['2026-11-01', '2026-11-01T09:30:00Z'],
  });

const RANGE_RULES =
  'A date YYYY-MM-DD (00:00 UTC of that day) or an RFC 3339 date-time with its zone. The range is half-open, [from, to): a call at exactly from counts, one at exactly to does not; at most 366 days';

const rangeFields = {
  from: Type.Optional(
    bound('from', `Start of the range, included; default: 30 days before to. ${RANGE_RULES}`),
  ),
  to: Type.Optional(bound('to', `End of the range, excluded; default: now. ${RANGE_RULES}`)),
};

export const UsageQuery = Type.Object(
  {
    ...rangeFields,
    groupBy: Type.Optional(
      Type.Enum(GROUPINGS, {
        errorMessage: `groupBy must be one of: ${GROUPINGS.join(', ')}`,
        description:
          "Group by UTC day (default), by the model that answered, by API key, or by kind of call: chat (a client's call) or extraction (the call that learned memories from one)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type UsageQuery = Static<typeof UsageQuery>;

export const UsageExportQuery = Type.Object(rangeFields, { additionalProperties: false });
export type UsageExportQuery = Static<typeof UsageExportQuery>;

const figures = {
  requests: Type.Integer({
    minimum: 0,
    description: 'Calls of the chat interface, and the extraction calls made after them',
  }),
  promptTokens: Type.Integer({ minimum: 0 }),
  completionTokens: Type.Integer({ minimum: 0 }),
  reasoningTokens: Type.Integer({
    minimum: 0,
    description:
      'Of completionTokens, the tokens reasoning models spent thinking, as their providers reported them',
  }),
  totalTokens: Type.Integer({ minimum: 0 }),
  costUsd: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], {
    description:
      'US dollars: the exact sum of the costs of the calls whose model has a price, in micro-dollars, divided once. Calls of a model without a price have no known cost and are not in it (unpricedRequests counts them); null when no call has a known cost',
  }),
  unpricedRequests: Type.Integer({
    minimum: 0,
    description:
      'Calls whose model has no price (a self-hosted model): their cost is unknown, and left out of costUsd',
  }),
};

export const UsageReport = Type.Object(
  {
    from: Type.String({ format: 'date-time', description: 'Start of the range, included' }),
    to: Type.String({ format: 'date-time', description: 'End of the range, excluded' }),
    groupBy: Type.Enum(GROUPINGS),
    totals: Type.Object(figures, { additionalProperties: false }),
    groups: Type.Array(
      Type.Object(
        {
          key: Type.String({
            description:
              'The UTC day (YYYY-MM-DD), the model id, the API key id, or the kind (chat, extraction); groups are sorted by it (days chronologically), groups without calls left out',
          }),
          ...figures,
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    $id: 'UsageReport',
    additionalProperties: false,
    description:
      'Calls in the range that the caller may see: members their own, owners and admins the organization’s',
  },
);
export type UsageReport = Static<typeof UsageReport>;

export const UsageCsv = {
  description:
    'One line per call in the range, oldest first (RFC 4180, CRLF line ends, a header line): time, user_id, key_id, model, provider, prompt_tokens, completion_tokens, total_tokens, cost_usd (empty when the cost is unknown: the model has no price), latency_ms, status, reasoning_tokens (of completion_tokens, the tokens a reasoning model spent thinking), kind (chat, or extraction: a call that learned memories from a chat call)',
  headers: {
    'content-disposition': {
      type: 'string',
      description: 'attachment; filename="mnemo-usage-<from>-<to>.csv"',
    },
  },
  content: { 'text/csv': { schema: Type.String() } },
};
