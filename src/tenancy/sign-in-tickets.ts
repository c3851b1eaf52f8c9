import { parseCookie, stringifySetCookie } from 'cookie';
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.ts';
import { hashLinkSecret, newLinkSecret } from '../platform/link-secrets.ts';
import { insertAccountLink, takeAccountLink } from './account-links.repository.ts';

/** The cookie that carries a ticket from the page that made it to the next sign-in. */
export const TICKET_COOKIE = 'mnemo_sign_in';
/** How long a ticket waits for the sign-in it stands for. */
const TICKET_TTL_SECONDS = 10 * 60;

/**
 * A sign-in ticket: what lets a person who just made their account (by invitation or sign-up)
 * or set a new password land signed in, without typing the password again. The page that did
 * it issues one for the account and sets it in an HttpOnly cookie for the authorization server's
 * path; the next sign-in the provider asks for in this browser (the studio starts one at once)
 * takes it instead of the form. Single use (taken in one statement), ten minutes, kept as a hash
 * (account_links, purpose `sign-in`), so any process takes it.
 */
export async function issueSignInTicket(
  trx: Kysely<Tables>,
  userId: string,
  now = Date.now(),
): Promise<string> {
  const { secret, hash } = newLinkSecret('sit_');
  await insertAccountLink(trx, {
    purpose: 'sign-in',
    secretHash: hash,
    userId,
    email: null,
    details: null,
    at: now,
    ttlMs: TICKET_TTL_SECONDS * 1000,
  });
  return secret;
}

/** Takes the ticket: the account it signs in, once; undefined when unknown, used or expired. */
export async function takeSignInTicket(
  db: Kysely<Tables>,
  secret: string,
  now = Date.now(),
): Promise<string | undefined> {
  const taken = await takeAccountLink(db, 'sign-in', hashLinkSecret(secret), now);
  return taken?.user_id ?? undefined;
}

/**
 * `Set-Cookie` for a ticket, or, without one, the one that clears it: HttpOnly, SameSite=Lax,
 * for `path` (the authorization server's), Secure when the public URL is https.
 */
export function ticketCookie(
  secret: string | undefined,
  o: { readonly path: string; readonly secure: boolean },
): string {
  return stringifySetCookie({
    name: TICKET_COOKIE,
    value: secret ?? '',
    maxAge: secret === undefined ? 0 : TICKET_TTL_SECONDS,
    path: o.path,
    httpOnly: true,
    sameSite: 'lax',
    secure: o.secure,
  });
}

/** The ticket a request's `Cookie` header carries, if any. */
export function ticketOf(cookieHeader: string | undefined): string | undefined {
  return parseCookie(cookieHeader ?? '')[TICKET_COOKIE] || undefined;
}
