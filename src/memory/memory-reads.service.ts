import type { Readable } from 'node:stream';
import { recordAudit } from '../audit/index.ts';
import { type JsonText, jsonText } from '../platform/json-text.ts';
import { parseUuid } from '../platform/uuid.ts';
import type { Caller, ReadAlong } from '../tenancy/index.ts';
import { expiredCursor } from './cursor.ts';
import { memoryNotFound, orgExportOwnersOnly } from './memory.errors.ts';
import { POOL_ACCESS, type ReachableMemory, type ScopeState } from './memory.repository.ts';
import type { ExportQuery, ListQuery, ListResponse, MemoryItem } from './memory.schemas.ts';
import type { Target } from './memory.targets.ts';
import { toMemoryItem } from './memory-item.ts';
import type { MemoryServiceContext } from './memory-service-context.ts';
import { createStoreExport } from './store-export.ts';

const READ_POOL = POOL_ACCESS.read;

/**
 * The reads of the memory service: the list and its sync by cursor, one memory, the caller's
 * own reads in their context's statement, the checks of whom a request may act for and which
 * store it may reach, and the exports.
 */
export function createMemoryReadsService({ deps, auditAlone, reachable }: MemoryServiceContext) {
  const { database, repository: repo, ownReads, targets, cursors, fullLists } = deps;
  const { reader } = database;
  const exports = createStoreExport({ database, repository: repo });

  return {
    /**
     * The list answer as its JSON body: full lists are kept serialized (see list-cache.ts).
     * `ownScope`: the counter of the caller's personal store as `readOwnScopeWithCaller` read
     * it, when the query names no other store: not read again.
     */
    async list(
      caller: Caller,
      query: ListQuery,
      ownScope?: { readonly state: ScopeState | undefined },
    ): Promise<JsonText<ListResponse>> {
      const { scope, target } = await targets.forList(caller, query);
      const since = query.since === undefined ? undefined : cursors.decode(scope, query.since);
      // Read the counter before the rows: every change at or below it has committed, so the
      // rows read next hold all of them (and perhaps later ones, which the next pull repeats).
      const state =
        ownScope && !target.overridden && scope.kind === 'user'
          ? ownScope.state
          : await repo.readScope(reader, scope);
      const version = state?.version ?? 0;
      // Audited once answered: a pull refused with 410 was no read done for the target.
      const answered = async (body: JsonText<ListResponse>) => {
        await auditAlone(caller, target, 'list');
        return body;
      };
      const json = (response: ListResponse) => jsonText(response);
      // A kept list holds its cursor already (the same bytes: cursors are deterministic).
      const cached = since === undefined && state ? fullLists.get(state.id, version) : undefined;
      if (cached !== undefined) return answered(cached);
      // A pull that finds no change answers with the cursor it was given (the same bytes).
      const cursor =
        since === version && query.since !== undefined
          ? query.since
          : cursors.encode(scope, version);
      if (since === undefined) {
        if (!state) return answered(json({ memories: [], cursor }));
        const rows = await repo.listActive(reader, state.id);
        const body = json({ memories: rows.map(toMemoryItem), cursor });
        fullLists.set(state.id, version, body);
        return answered(body);
      }
      if (since > version) throw expiredCursor();
      // The rows with the store's purge mark, read together: a purge since the counter was read
      // is seen, and answered as an expired cursor.
      const changes = state ? await repo.changesSince(reader, state.id, since) : undefined;
      if (since < (changes?.purgedVersion ?? 0)) throw expiredCursor();
      const memories: MemoryItem[] = [];
      const deleted: string[] = [];
      for (const row of changes?.changed ?? []) {
        if (row.deleted_at === null) memories.push(toMemoryItem(row));
        else deleted.push(row.id);
      }
      return answered(json({ memories, deleted, cursor }));
    },

    /**
     * Whom a request for `user` acts on, refused as the API's `user` is: 403 when the
     * organization lets only owners and admins act for others, 400 for no member.
     */
    actingFor: (caller: Caller, user: string): Promise<Target> => targets.forMember(caller, user),

    /** Refuses as the API would a caller who may not read (or edit) the store. */
    async checkStore(
      caller: Caller,
      input: { readonly project?: string | undefined },
      need: 'read' | 'edit',
    ): Promise<void> {
      await (need === 'read' ? targets.forList(caller, input) : targets.forAdd(caller, input));
    },

    /**
     * The caller's own memory `rawId` (as `get` reaches it) read in the statement of the
     * caller's context: for `memberReading` (tenancy/authenticate.ts). Undefined when `rawId` is no
     * memory id: nothing to read.
     */
    readOwnWithCaller(
      userId: string,
      orgId: string,
      rawId: string,
    ): Promise<ReadAlong<ReachableMemory | undefined>> | undefined {
      const memoryId = parseUuid(rawId);
      if (!memoryId) return undefined;
      return ownReads.memory({ orgId, memoryId, userId });
    },

    /** The counter of the caller's personal store, read in the statement of their context. */
    readOwnScopeWithCaller: (userId: string, orgId: string) => ownReads.scope({ orgId, userId }),

    /**
     * `own`: the memory as `readOwnWithCaller` found it for this caller, when `user` names no
     * one else: not read again.
     */
    async get(
      caller: Caller,
      id: string,
      user: string | undefined,
      own?: { readonly memory: ReachableMemory | undefined },
    ): Promise<MemoryItem> {
      const target = await targets.forMember(caller, user);
      const row =
        own && !target.overridden ? own.memory : await reachable(caller, target, id, READ_POOL);
      if (!row || row.deleted_at !== null) throw memoryNotFound();
      await auditAlone(caller, target, 'get', row.id);
      return toMemoryItem(row);
    },

    /**
     * The store's active memories as JSON lines read from one snapshot, and the cursor of that
     * snapshot, for `since=` of the list (store-export.ts). Refused as the list is.
     */
    async export(
      caller: Caller,
      query: ExportQuery,
    ): Promise<{ readonly cursor: string; readonly lines: Readable }> {
      const { scope, target } = await targets.forList(caller, query);
      const { started, stream } = await exports.store(async (snapshot) => {
        const state = await repo.readScope(snapshot.reader, scope);
        await auditAlone(caller, target, 'export');
        return state;
      });
      return { cursor: cursors.encode(scope, started?.version ?? 0), lines: stream };
    },

    /**
     * Every store of the caller's organization as JSON lines, read from one snapshot: a backup,
     * or a move to another server. Its owners only, and audited.
     */
    async exportOrganization(caller: Caller): Promise<Readable> {
      if (caller.role !== 'owner') throw orgExportOwnersOnly();
      const { stream } = await exports.organization(caller.orgId, () =>
        database.write((trx) =>
          recordAudit(trx, {
            orgId: caller.orgId,
            actorId: caller.userId,
            targetId: caller.orgId,
            action: 'org.export',
          }),
        ),
      );
      return stream;
    },
  };
}
