import { data, inOrg } from '../api/client.ts';
import type { Studio } from '../app/studio-context.tsx';

/** What the key is called in Settings › API Keys, where it shows while it lives. */
export const TEMPORARY_KEY_NAME = 'Studio playground (temporary)';
/** Under the hour: a key left behind by a crashed tab dies on its own soon. */
const LIFETIME_MS = 55 * 60_000;
/** A key this close to its end is replaced before a call rather than used. */
const REPLACE_AHEAD_MS = 5 * 60_000;
/** How often the access token kept for the page's last request is brought up to date. */
const TOKEN_REFRESH_MS = 30_000;

interface Held {
  readonly id: string;
  readonly secret: string;
  readonly expiresAt: number;
}

export interface TemporaryKey {
  /** The secret of a key with a few minutes left at least; made (or replaced) first if needed. */
  secret(): Promise<string>;
  /** After `/v1` refused `secret` (revoked in the meantime): the next call makes a new key. */
  refused(secret: string): void;
  /** Revokes the key now (leaving the page, signing out); the next call makes a new one. */
  revoke(): Promise<void>;
  /** Revokes the key as the document goes away, by a request that outlives the page. */
  revokeOnUnload(): void;
}

/**
 * The playground's own API key. The studio never keeps a key's secret past its dialog, so the
 * playground makes a short-lived key on first need, holds its secret in memory only, replaces
 * it before it expires, and revokes it when it is done with it.
 */
export function createTemporaryKey(
  studio: Pick<Studio, 'api' | 'org' | 'session'>,
  now: () => number = Date.now,
): TemporaryKey {
  const { api, org, session } = studio;
  let held: Held | undefined;
  let making: Promise<Held> | undefined;
  // The page's last request cannot wait for a token: one is kept at hand while a key lives.
  let accessToken: string | undefined;
  let tokenTimer: ReturnType<typeof setInterval> | undefined;

  const keepToken = () => {
    void session.accessToken().then(
      (token) => {
        accessToken = token;
      },
      () => {},
    );
  };

  async function make(): Promise<Held> {
    const expiresAt = now() + LIFETIME_MS;
    const created = await data(
      api.POST('/api/v1/api-keys', {
        params: { header: inOrg(org.id) },
        body: { name: TEMPORARY_KEY_NAME, expiresAt: new Date(expiresAt).toISOString() },
      }),
    );
    keepToken();
    tokenTimer ??= setInterval(keepToken, TOKEN_REFRESH_MS);
    return { id: created.key.id, secret: created.secret, expiresAt };
  }

  async function revokeById(id: string): Promise<void> {
    await data(
      api.DELETE('/api/v1/api-keys/{id}', { params: { header: inOrg(org.id), path: { id } } }),
    );
  }

  /** Forgets the key held, and what kept it usable; returns it for revoking. */
  function drop(): Held | undefined {
    const dropped = held;
    held = undefined;
    clearInterval(tokenTimer);
    tokenTimer = undefined;
    return dropped;
  }

  return {
    secret() {
      if (held && held.expiresAt - now() > REPLACE_AHEAD_MS) return Promise.resolve(held.secret);
      making ??= make()
        .then((fresh) => {
          const old = held;
          held = fresh;
          // The old key may still be finishing an answer; it is of no further use.
          if (old) void revokeById(old.id).catch(() => {});
          return fresh;
        })
        .finally(() => {
          making = undefined;
        });
      return making.then((fresh) => fresh.secret);
    },
    refused(secret) {
      if (held?.secret === secret) drop();
    },
    async revoke() {
      await making?.catch(() => {});
      const dropped = drop();
      if (dropped) await revokeById(dropped.id);
    },
    revokeOnUnload() {
      const dropped = held;
      const token = accessToken;
      drop();
      if (!dropped || !token) return;
      void fetch(`/api/v1/api-keys/${dropped.id}`, {
        method: 'DELETE',
        keepalive: true,
        headers: { authorization: `Bearer ${token}`, 'x-organization-id': org.id },
      }).catch(() => {});
    },
  };
}
