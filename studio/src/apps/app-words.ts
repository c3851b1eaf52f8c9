import { ApiError } from '../api/errors.ts';
import type { App, AppList } from '../api/queries.ts';
import { formatInteger } from '../ui/format.ts';

export type AppRole = App['role'];
export type RateLimits = AppList['rateLimits'];

/** What each role lets an app do, as the API enforces it (src/apps/apps.schemas.ts, roles.ts). */
export const APP_ROLES: readonly { value: AppRole; label: string; allows: string }[] = [
  {
    value: 'member',
    label: 'Member',
    allows: 'Keeps its own memories and works in the projects shared with it, as any member does.',
  },
  {
    value: 'admin',
    label: 'Admin',
    allows:
      'Registers the people it serves as end users and reads and writes their memories. Like any admin, it can also manage members, projects and settings.',
  },
];

export const appRoleLabel = (role: AppRole) =>
  APP_ROLES.find((r) => r.value === role)?.label ?? role;

/** "an admin", "a member": a role in a sentence. */
export const aRole = (role: AppRole) => (role === 'admin' ? 'an admin' : 'a member');

/** How long a token from the token endpoint lives (`expires_in: 900`), in minutes. */
export const TOKEN_MINUTES = 15;

/**
 * An app's rate limit as the list shows it: its own, or the default every credential has
 * (none at all when the server's rate limits are off).
 *
 * @example
 * rateLimitWords(null, { defaultPerMinute: 60, maxPerMinute: 6000 }) // '60 a minute (default)'
 * rateLimitWords(600, { defaultPerMinute: 60, maxPerMinute: 6000 }) // '600 a minute'
 */
export function rateLimitWords(limit: number | null, rates: RateLimits): string {
  if (limit !== null) return `${formatInteger(limit)} a minute`;
  if (rates.defaultPerMinute === 0) return 'No limit (default)';
  return `${formatInteger(rates.defaultPerMinute)} a minute (default)`;
}

/**
 * What a rate limit field holds: empty is the default (null), else a whole number of requests,
 * 1 or more. The ceiling is the server's to judge: it says so in a sentence.
 */
export function parseRateLimit(text: string): { value: number | null } | { problem: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { value: null };
  const value = Number(trimmed);
  if (!/^[0-9]+$/.test(trimmed) || !Number.isSafeInteger(value) || value < 1) {
    return {
      problem: 'Give a whole number of requests, 1 or more, or leave it empty for the default.',
    };
  }
  return { value };
}

/**
 * The API's refusal of a rate limit, in the page's words: the API names the field as JSON does
 * ("rateLimitPerMinute must be at most 6000, …"), and its numbers as the page writes them.
 */
export function rateLimitRefusal(message: string): string | undefined {
  if (!/^rateLimitPerMinute\b/.test(message)) return undefined;
  const said = message
    .replace(/^rateLimitPerMinute/, 'The rate limit')
    .replace(/\b[0-9]{4,}\b/g, (n) => formatInteger(Number(n)))
    .trim();
  return /[.!?]$/.test(said) ? said : `${said}.`;
}

/** A failure as the dialogs show it: in the page's words when it is about the rate limit. */
export const explainRefusal = (error: unknown) =>
  error instanceof ApiError && error.status === 400 ? rateLimitRefusal(error.message) : undefined;

/**
 * The command that exchanges an app's credentials for a token (client_credentials, the client
 * authenticated with HTTP Basic), as a shell would take it. Given the credentials, it sets them
 * first, which keeps each line short enough to read whole.
 */
export function tokenCommand(
  origin: string,
  credentials?: { readonly clientId: string; readonly secret: string },
): string {
  return [
    ...(credentials
      ? [`CLIENT_ID=${credentials.clientId}`, `CLIENT_SECRET=${credentials.secret}`]
      : []),
    `curl -s ${origin}/oauth/token \\`,
    '  -u "$CLIENT_ID:$CLIENT_SECRET" \\',
    '  -d grant_type=client_credentials \\',
    "  -d 'scope=memory:read memory:write admin'",
  ].join('\n');
}

/** A call of the platform API with the token: the organization is named on every request. */
export function apiCommand(origin: string, orgId: string): string {
  return [
    `curl -s ${origin}/api/v1/memory \\`,
    '  -H "Authorization: Bearer $ACCESS_TOKEN" \\',
    `  -H "X-Organization-Id: ${orgId}"`,
  ].join('\n');
}
