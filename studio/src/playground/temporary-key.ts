import { data, inOrg } from '../api/client.ts';
import type { Studio } from '../app/studio-context.tsx';
import type { Session } from '../auth/session.ts';
import { PLAYGROUND_KEY_NAME } from '../keys/key-lifetime.ts';

/** Under the hour: a key left behind by a closed tab dies on its own soon. */
const LIFETIME_MS = 55 * 60_000;
/** A key this close to its end is replaced before a call rather than used. */
const REPLACE_AHEAD_MS = 5 * 60_000;
/** Where the tab keeps its key between visits to the page and across reloads. */
const STORAGE_KEY = 'mnemo.studio.playground-key';

/** The key the tab holds: enough to call `/v1` with it, and to revoke it. */
interface Held {
  readonly id: string;
  readonly secret: string;
  readonly expiresAt: number;
  /** Whose key it is and where: another person in this tab never uses or revokes it. */
  readonly sub: string;
  readonly orgId: string;
}

/** The part of the Web Storage interface the key needs; `sessionStorage` in the browser. */
export type KeyStore = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

export interface TemporaryKey {
  /** The secret of a key with a few minutes left at least; made (or replaced) first if needed. */
  secret(): Promise<string>;
  /** After `/v1` refused `secret` (revoked or gone meanwhile): the next call makes a new key. */
  refused(secret: string): void;
  /** Revokes the key now (signing out, another organization); the next call makes a new one. */
  revoke(): Promise<void>;
}

/**
 * The playground's own API key, one per browser tab: made on first need, used again on every
 * visit to the page and after a reload, replaced when it nears its end or `/v1` refuses it,
 * revoked at sign-out. A closed tab leaves it to expire within the hour.
 *
 * Only this key's secret, its id and whose it is are kept in `sessionStorage`, which is this
 * tab's alone and ends with it; the OAuth tokens never are (auth/session.ts). Keeping the secret
 * there gives nothing to a script that could read it that the page's memory would not: the
 * access token beside it has the `keys` scope and could make a key of its own, with no expiry.
 * The key is weaker than that token in every way that matters: one person, one organization,
 * `/v1` only, gone within the hour and at sign-out. What it buys: a reload or a second visit
 * does not make a new key, and the Keys page does not fill with dead ones.
 */
export function createTemporaryKey(
  studio: Pick<Studio, 'api' | 'org' | 'me'>,
  options: { storage?: KeyStore; now?: () => number } = {},
): TemporaryKey {
  const { api, org, me } = studio;
  const storage = options.storage ?? sessionStorage;
  const now = options.now ?? Date.now;
  let held: Held | undefined;
  let making: Promise<Held> | undefined;

  /** The key kept by this tab, if it is this person's; another's is forgotten, not used. */
  function kept(): Held | undefined {
    const found = readKept(storage);
    if (found && found.sub !== me.sub) storage.removeItem(STORAGE_KEY);
    return found?.sub === me.sub ? found : undefined;
  }

  function keep(key: Held) {
    held = key;
    storage.setItem(STORAGE_KEY, JSON.stringify(key));
  }

  /** Lets go of `key`; the tab's storage too, unless it holds a newer one by then. */
  function forget(key: Held) {
    if (held?.id === key.id) held = undefined;
    if (readKept(storage)?.id === key.id) storage.removeItem(STORAGE_KEY);
  }

  async function make(): Promise<Held> {
    const expiresAt = now() + LIFETIME_MS;
    const created = await data(
      api.POST('/api/v1/api-keys', {
        params: { header: inOrg(org.id) },
        body: { name: PLAYGROUND_KEY_NAME, expiresAt: new Date(expiresAt).toISOString() },
      }),
    );
    return { id: created.key.id, secret: created.secret, expiresAt, sub: me.sub, orgId: org.id };
  }

  async function revokeHeld(key: Held): Promise<void> {
    await data(
      api.DELETE('/api/v1/api-keys/{id}', {
        params: { header: inOrg(key.orgId), path: { id: key.id } },
      }),
    );
  }

  const usable = (key: Held | undefined): key is Held =>
    key !== undefined && key.orgId === org.id && key.expiresAt - now() > REPLACE_AHEAD_MS;

  return {
    secret() {
      held ??= kept();
      if (usable(held)) return Promise.resolve(held.secret);
      making ??= make()
        .then((fresh) => {
          const old = held;
          keep(fresh);
          // Near its end or of another organization, the old key is of no further use; an
          // answer it is still streaming goes on.
          if (old && old.expiresAt > now()) void revokeHeld(old).catch(() => {});
          return fresh;
        })
        .finally(() => {
          making = undefined;
        });
      return making.then((fresh) => fresh.secret);
    },
    refused(secret) {
      if (held?.secret === secret) forget(held);
    },
    async revoke() {
      // Let go at once, so that a key of the next organization does not find this one kept.
      const current = held ?? kept();
      if (current) forget(current);
      // A key still being made goes too, once it is.
      const fresh = await making?.catch(() => undefined);
      if (fresh) forget(fresh);
      const dropped = [current, fresh].filter((key) => key !== undefined);
      await Promise.all(dropped.map(revokeHeld));
    },
  };
}

/** What the tab kept, if it reads as a key; anything else is dropped. */
function readKept(storage: KeyStore): Held | undefined {
  const text = storage.getItem(STORAGE_KEY);
  if (text === null) return undefined;
  try {
    const value = JSON.parse(text) as Partial<Held>;
    if (
      typeof value.id === 'string' &&
      typeof value.secret === 'string' &&
      typeof value.expiresAt === 'number' &&
      typeof value.sub === 'string' &&
      typeof value.orgId === 'string'
    ) {
      return value as Held;
    }
  } catch {
    // Not JSON: dropped below.
  }
  storage.removeItem(STORAGE_KEY);
  return undefined;
}

/** The key of each signed-in page load, with the organization it is for. */
const perSession = new WeakMap<Session, { orgId: string; key: TemporaryKey }>();

/**
 * The tab's playground key for the organization shown: the same object on every visit to the
 * page, revoked at sign-out. Choosing another organization revokes the one of the previous.
 */
export function playgroundKey(
  studio: Pick<Studio, 'api' | 'org' | 'session' | 'me'>,
): TemporaryKey {
  const { session, org } = studio;
  const current = perSession.get(session);
  if (current?.orgId === org.id) return current.key;
  if (current) void current.key.revoke().catch(() => {});
  const key = createTemporaryKey(studio);
  perSession.set(session, { orgId: org.id, key });
  if (!current) session.onSignOut(() => perSession.get(session)?.key.revoke() ?? Promise.resolve());
  return key;
}
