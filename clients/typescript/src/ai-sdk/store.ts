import type { Mnemo } from '../mnemo.ts';

/** What the AI SDK helpers use of a client: a `Mnemo` is one. */
export type MnemoClient = Pick<Mnemo, 'memories' | 'endUsers'>;

/** Which memories the helpers work with: the caller's own by default, or one of the three. */
export interface MemoryStoreOptions {
  /** The client, acting in one organization with one credential. */
  readonly mnemo: MnemoClient;
  /**
   * Another member's memories: their mnemo user id (the memory API's `user`). The credential's
   * owner must be allowed to act for others (the organization's rule).
   */
  readonly user?: string | undefined;
  /**
   * An end user's memories, by your app's own id for them: registered with
   * `mnemo.endUsers.register` on first use (an owner's, an admin's or an admin app's credential),
   * the mnemo id then kept for every later call.
   */
  readonly endUser?: string | undefined;
  /** A project's shared pool, by its id. */
  readonly project?: string | undefined;
}

/** Where a request goes: the memory API's `user` or `project`, or neither for the caller's own. */
export interface StoreTarget {
  readonly user?: string;
  readonly project?: string;
}

/** The store the options name, resolved when a call needs it (an end user is registered then). */
export interface BoundStore {
  readonly kind: 'own' | 'user' | 'end user' | 'project';
  target(): Promise<StoreTarget>;
}

/** End users registered through a client, by external id: their mnemo id, or its registration. */
const registered = new WeakMap<MnemoClient, Map<string, Promise<string>>>();
/** The external ids kept per client, at most: past it, the longest kept is forgotten. */
const KEPT_END_USERS = 10_000;

/**
 * The mnemo id of the end user registered under `externalId`, registering them on first use.
 * Kept per client across every tool set and middleware made with it (an app makes them per
 * request): one registration per end user, shared by the calls that start while it runs. A
 * failed registration is forgotten, so the next call tries again.
 */
function endUserId(mnemo: MnemoClient, externalId: string): Promise<string> {
  let ids = registered.get(mnemo);
  if (ids === undefined) {
    ids = new Map();
    registered.set(mnemo, ids);
  }
  const known = ids.get(externalId);
  if (known !== undefined) return known;
  const kept = ids;
  // No signal: the registration is shared, one caller's abort must not fail the others'.
  const registration = mnemo.endUsers.register(externalId).then(
    ({ endUser }) => endUser.id,
    (error: unknown) => {
      if (kept.get(externalId) === registration) kept.delete(externalId);
      throw error;
    },
  );
  kept.set(externalId, registration);
  if (kept.size > KEPT_END_USERS) {
    const oldest = kept.keys().next().value;
    if (oldest !== undefined) kept.delete(oldest);
  }
  return registration;
}

/**
 * The store `options` name. One of `user`, `endUser` and `project` at most: the memory API
 * takes no `project` with a `user`, and an end user is a user.
 */
export function bindStore(options: MemoryStoreOptions, caller: string): BoundStore {
  const { mnemo, user, endUser, project } = options;
  const named = [user, endUser, project].filter((value) => value !== undefined);
  if (named.length > 1) {
    throw new TypeError(`${caller}: give at most one of user, endUser and project`);
  }
  for (const [name, value] of Object.entries({ user, endUser, project })) {
    if (value !== undefined && (typeof value !== 'string' || value.trim() === '')) {
      throw new TypeError(`${caller}: ${name} must be a non-empty string`);
    }
  }
  if (user !== undefined) return { kind: 'user', target: async () => ({ user }) };
  if (project !== undefined) return { kind: 'project', target: async () => ({ project }) };
  if (endUser !== undefined) {
    return { kind: 'end user', target: async () => ({ user: await endUserId(mnemo, endUser) }) };
  }
  return { kind: 'own', target: async () => ({}) };
}
