import type { ApiClient } from '../api/client.ts';
import { data } from '../api/client.ts';
import type { components } from '../api/openapi.d.ts';
import type { OrgRole } from '../auth/userinfo.ts';

export type Invitation = components['schemas']['Invitation'];

/** An invitation as its creation answered: the link is in no other answer, ever. */
export interface CreatedInvitation {
  readonly invitation: Invitation;
  /** The link to join, single use: only this page session has it. */
  readonly url: string;
  /** The server emailed it; otherwise the person inviting passes it on. */
  readonly emailed: boolean;
}

/**
 * Only this page asks for invitations, and only owners and admins may (members get a 403), so
 * the key lives here rather than among the shared ones.
 */
export const invitationsKey = (orgId: string) => ['invitations', orgId] as const;

/** The pending invitations (not accepted, revoked or expired), newest first. */
export const invitationsQuery = (api: ApiClient, orgId: string) => ({
  queryKey: invitationsKey(orgId),
  queryFn: async (): Promise<Invitation[]> =>
    (await data(api.GET('/api/v1/orgs/{orgId}/invitations', { params: { path: { orgId } } })))
      .invitations,
});

export const createInvitation = (
  api: ApiClient,
  orgId: string,
  body: { email: string; role: OrgRole },
): Promise<CreatedInvitation> =>
  data(api.POST('/api/v1/orgs/{orgId}/invitations', { params: { path: { orgId } }, body }));

export const revokeInvitation = (api: ApiClient, orgId: string, invitationId: string) =>
  data(
    api.DELETE('/api/v1/orgs/{orgId}/invitations/{invitationId}', {
      params: { path: { orgId, invitationId } },
    }),
  );

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/**
 * How long a link has left, in the unit people count it in: "in 7 days", "tomorrow", "in 5
 * hours". Whole days round, so a link made a minute ago says the 7 days it was given.
 */
export function expiresIn(iso: string, now = Date.now()): string {
  const left = Date.parse(iso) - now;
  if (left >= DAY_MS) return relative.format(Math.round(left / DAY_MS), 'day');
  if (left >= HOUR_MS) return relative.format(Math.round(left / HOUR_MS), 'hour');
  return relative.format(Math.max(1, Math.round(left / 60_000)), 'minute');
}

/** A link with less than a day left is worth pointing out. */
export const expiresSoon = (iso: string, now = Date.now()) => Date.parse(iso) - now < DAY_MS;

/** "sam@example.com" and "Sam@Example.com " are the same invitation: the API lower-cases. */
export const sameAddress = (a: string, b: string) =>
  a.trim().toLowerCase() === b.trim().toLowerCase();
