import { Type } from 'typebox';

// What every endpoint of /api shares: its error bodies, the organization header, and the
// shapes of ids and times.

/** An id: a UUID, as every id of the API is. */
export const Uuid = (description: string) => Type.String({ format: 'uuid', description });

/** A time, as the API writes every one: RFC 3339 in UTC, to the millisecond. */
export const Timestamp = (description: string) =>
  Type.String({ format: 'date-time', description, examples: ['2026-11-22T09:30:00.000Z'] });

export const ErrorBody = Type.Object(
  { error: Type.String() },
  { $id: 'Error', description: 'An error: a message for people' },
);

export const OrganizationHeader = Type.Object({
  'x-organization-id': Type.String({
    format: 'uuid',
    description: 'The organization the request acts in',
  }),
});

export const UnauthenticatedBody = Type.Object(
  { error: Type.String() },
  {
    description:
      'No credential, or one that is refused: the message says why (expired, not yet valid, another issuer or audience, a bad signature, malformed, an API key)',
    headers: {
      'www-authenticate': {
        type: 'string',
        description:
          'RFC 6750 challenge: Bearer realm="mnemo" when no credential was sent; with error="invalid_token" and error_description (the same message) when one was refused',
      },
    },
  },
);

export const RateLimitedBody = Type.Object(
  { error: Type.String() },
  {
    description: 'Over the request rate of this credential subject (60 a minute by default)',
    headers: {
      'retry-after': { type: 'integer', description: 'Seconds until a request may pass' },
      'ratelimit-policy': { type: 'string', description: '"credential";q=<limit>;w=<seconds>' },
      ratelimit: { type: 'string', description: '"credential";r=<remaining>;t=<seconds>' },
    },
  },
);

export const StoreUnavailableBody = Type.Object(
  { error: Type.String() },
  {
    description:
      'The store cannot be reached or did not answer in time; nothing was changed, and the same request may succeed shortly',
    headers: {
      'retry-after': { type: 'integer', description: 'Seconds before trying again' },
    },
  },
);

/**
 * The answers every authenticated platform route may give besides its own: a refused credential,
 * the rate limit, the store out of reach, and any other error in the `{"error"}` shape.
 */
export const PLATFORM_ERROR_RESPONSES = {
  401: UnauthenticatedBody,
  429: RateLimitedBody,
  503: StoreUnavailableBody,
  '4xx': ErrorBody,
  '5xx': ErrorBody,
};

/** What begins an operation's list of the 400s no schema can state (`rulesNoSchemaStates`). */
export const UNSTATED_RULES_HEADING = 'Refused with 400 for rules no schema can state:';

/**
 * An operation's description of the rules it enforces that its schemas cannot state (a member
 * that exists, one parameter excluding another, a time still to come): each as the exact error
 * message it answers, quoted, and when. Every other 400 is a schema's rule, stated in the
 * schema (openapi-fuzz.test.ts holds the two to that).
 */
export function rulesNoSchemaStates(rules: Readonly<Record<string, string>>): string {
  const listed = Object.entries(rules).map(([message, when]) => `\`${message}\` (${when})`);
  return `${UNSTATED_RULES_HEADING} ${listed.join('; ')}.`;
}
