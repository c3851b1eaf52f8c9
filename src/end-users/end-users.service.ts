import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { recordAudit } from '../audit/index.ts';
import type { Database } from '../db/database.ts';
import type { Tables } from '../db/tables.ts';
import { blankName } from '../platform/errors.ts';
import { isoTime } from '../platform/iso-time.ts';
import { decodeKeysetCursor, encodeKeysetCursor } from '../platform/paging.ts';
import { textProblem } from '../platform/storable-text.ts';
import type { Caller } from '../tenancy/index.ts';
import {
  deleteUnreferencedUser,
  insertIdentity,
  requireManager,
  updateUserName,
  upsertMembership,
} from '../tenancy/index.ts';
import { recordEndUserEvent } from '../webhooks/index.ts';
import {
  endUserNotFound,
  externalIdControl,
  externalIdLength,
  externalIdText,
} from './end-users.errors.ts';
import {
  claimExternalId,
  countEndUsers,
  countMemoriesOf,
  type EndUserRow,
  findEndUser,
  pageEndUsers,
  searchKey,
  updateEndUserName,
} from './end-users.repository.ts';
import {
  END_USERS_PAGE,
  type EndUser,
  type EndUserBody,
  type EndUsersQuery,
  type EndUsersResponse,
  MAX_EXTERNAL_ID_CHARS,
} from './end-users.schemas.ts';

const CURSOR_TAG = 'e1';

/**
 * An external id as the path carried it (decoded), or 400 with what is wrong: 1 to 200
 * characters (code points), none of them a control character (Unicode's Cc: C0, DEL, C1).
 */
export function parseExternalId(raw: string): string {
  const length = [...raw].length;
  if (length === 0 || length > MAX_EXTERNAL_ID_CHARS) {
    throw externalIdLength();
  }
  if (/\p{Cc}/u.test(raw)) throw externalIdControl();
  const problem = textProblem(raw);
  if (problem) throw externalIdText(problem);
  return raw;
}

export function presentEndUser(row: EndUserRow): EndUser {
  return {
    id: row.user_id,
    externalId: row.external_id,
    ...(row.name === null ? {} : { name: row.name }),
    createdAt: isoTime(row.created_at),
  };
}

/**
 * What erasing an end user needs: the erasure of an identity, which reaches into every part
 * (erasure/identity-erasure.ts, which depends on this part; the composition root gives it here).
 */
export interface IdentityEraser {
  erase(request: {
    readonly orgId: string;
    readonly actorId: string;
    readonly action: string;
    readonly find: (trx: Kysely<Tables>) => Promise<string | undefined>;
  }): Promise<unknown>;
}

export interface EndUsersServiceDeps {
  readonly database: Database;
  readonly erasure: IdentityEraser;
  readonly now?: () => number;
}

/**
 * The end users an app remembers: people known by the app's own id, each an identity of the
 * organization with the role `member` (so the memory API's `user` reaches them, project grants
 * hold for them), who never sign in. Owners, admins and apps with the admin role manage them.
 */
export function createEndUsersService(deps: EndUsersServiceDeps) {
  const { database } = deps;
  const now = deps.now ?? Date.now;

  async function rename(trx: Kysely<Tables>, caller: Caller, row: EndUserRow, name: string) {
    if (row.name === name) return row;
    await updateUserName(trx, row.user_id, name);
    await updateEndUserName(trx, row.user_id, name);
    await recordAudit(trx, {
      orgId: caller.orgId,
      actorId: caller.userId,
      targetId: row.user_id,
      action: 'end_user.update',
    });
    return { ...row, name };
  }

  return {
    /**
     * Registers the end user, or finds the one registered under `rawExternalId` (and gives it
     * `name` when one is sent). `created` is true for exactly one of any number of concurrent
     * calls with the same id: the one whose claim of it committed.
     */
    async register(
      caller: Caller,
      rawExternalId: string,
      body: EndUserBody | undefined,
    ): Promise<{ created: boolean; endUser: EndUser }> {
      requireManager(caller, 'register end users');
      const externalId = parseExternalId(rawExternalId);
      const name = body?.name?.trim();
      if (name === '') throw blankName();
      return database.write(async (trx) => {
        const known = await findEndUser(trx, caller.orgId, externalId);
        if (known) {
          const row = name === undefined ? known : await rename(trx, caller, known, name);
          return { created: false, endUser: presentEndUser(row) };
        }
        const at = now();
        const userId = randomUUID();
        await insertIdentity(trx, { id: userId, kind: 'end_user', name: name ?? null, at });
        const claim = { orgId: caller.orgId, userId, externalId, name: name ?? null, at };
        if (!(await claimExternalId(trx, claim))) {
          // Registered meanwhile by a request that committed first: that one is the end user.
          await deleteUnreferencedUser(trx, userId);
          const winner = await findEndUser(trx, caller.orgId, externalId);
          if (!winner) throw new Error('an external id claimed by a commit could not be read');
          const row = name === undefined ? winner : await rename(trx, caller, winner, name);
          return { created: false, endUser: presentEndUser(row) };
        }
        await upsertMembership(trx, caller.orgId, userId, 'member');
        await recordAudit(trx, {
          orgId: caller.orgId,
          actorId: caller.userId,
          targetId: userId,
          action: 'end_user.register',
        });
        const endUser = presentEndUser({
          user_id: userId,
          external_id: externalId,
          name: name ?? null,
          created_at: at,
        });
        await recordEndUserEvent(trx, {
          orgId: caller.orgId,
          type: 'end_user.registered',
          userId,
          externalId,
          endUser,
          at,
        });
        return { created: true, endUser };
      });
    },

    /**
     * The mnemo id of the end user registered as `externalId` in the organization, for a caller
     * already admitted there (`x-mnemo-user` of a chat call); undefined for no such end user.
     */
    async idOf(orgId: string, externalId: string): Promise<string | undefined> {
      return (await findEndUser(database.db, orgId, externalId))?.user_id;
    },

    /** The end user with how many memories are held of them (what an erasure deletes). */
    async get(caller: Caller, rawExternalId: string) {
      requireManager(caller, 'read end users');
      const row = await findEndUser(database.db, caller.orgId, parseExternalId(rawExternalId));
      if (!row) throw endUserNotFound();
      const counts = await countMemoriesOf(database.db, row.user_id);
      return {
        ...presentEndUser(row),
        memories: { own: counts.own, pools: counts.contributed },
      };
    },

    async list(caller: Caller, query: EndUsersQuery): Promise<EndUsersResponse> {
      requireManager(caller, 'list end users');
      const limit = query.limit ?? END_USERS_PAGE.default;
      const position =
        query.cursor === undefined ? undefined : decodeKeysetCursor(CURSOR_TAG, query.cursor);
      const prefix = query.q === undefined || query.q === '' ? undefined : searchKey(query.q);
      const [rows, total] = await Promise.all([
        pageEndUsers(database.db, caller.orgId, { limit: limit + 1, position, prefix }),
        countEndUsers(database.db, caller.orgId, prefix),
      ]);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        endUsers: page.map(presentEndUser),
        total,
        ...(rows.length > limit && last
          ? { cursor: encodeKeysetCursor(CURSOR_TAG, { at: last.created_at, id: last.user_id }) }
          : {}),
      };
    },

    /**
     * Erases the end user and everything held of them (erasure/identity-erasure.ts). Done, also
     * when there was no one to erase: the id may have been erased already, or never known.
     */
    async erase(caller: Caller, rawExternalId: string): Promise<void> {
      requireManager(caller, 'erase end users');
      const externalId = parseExternalId(rawExternalId);
      await deps.erasure.erase({
        orgId: caller.orgId,
        actorId: caller.userId,
        action: 'end_user.erase',
        find: async (trx) => (await findEndUser(trx, caller.orgId, externalId))?.user_id,
      });
    },
  };
}

export type EndUsersService = ReturnType<typeof createEndUsersService>;
