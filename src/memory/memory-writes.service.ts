import { newRowId } from '../db/row-id.ts';
import type { Caller } from '../tenancy/index.ts';
import type { CursorScope } from './cursor.ts';
import { foldKey } from './fold.ts';
import { checkImportItem } from './import-items.ts';
import {
  badContent,
  contentProblem,
  editConflict,
  invalidBaseUpdatedAt,
  memoryNotFound,
  noUpdateFields,
  unknownCategory,
  unknownTargetUser,
} from './memory.errors.ts';
import { POOL_ACCESS } from './memory.repository.ts';
import type {
  AddBody,
  EraseQuery,
  ImportBody,
  ImportResponse,
  MemoryItem,
  UpdateBody,
} from './memory.schemas.ts';
import type { Target } from './memory.targets.ts';
import { isMissingContributor } from './memory-erasure.ts';
import { recognizedCategory, toMemoryItem } from './memory-item.ts';
import type { MemoryServiceContext } from './memory-service-context.ts';
import type { AddResult, AuditedAct } from './memory-writes.ts';
import { eraseStore } from './store-erase.ts';

export type AddOutcome =
  | { readonly created: true; readonly memory: MemoryItem }
  | { readonly created: false; readonly memory: { id: string; content: string } };

const EDIT_POOL = POOL_ACCESS.edit;

/**
 * The writes of the memory service: add and import, update, delete, the erase of a store, and
 * letting go of what this process keeps of erased stores.
 */
export function createMemoryWritesService({
  deps,
  now,
  auditAlone,
  reachable,
}: MemoryServiceContext) {
  const { database, repository: repo, writes, targets, fullLists, semantic } = deps;

  function checkContent(content: string): void {
    const problem = contentProblem(content, deps.maxContentChars);
    if (problem !== undefined) throw badContent(problem);
  }

  function scopeOf(
    caller: Caller,
    row: { scope_kind: 'user' | 'project'; scope_owner_id: string },
  ): CursorScope {
    return { orgId: caller.orgId, kind: row.scope_kind, ownerId: row.scope_owner_id };
  }

  return {
    /**
     * Lets go of what this process keeps of stores that were erased (their full lists and
     * vectors): nothing could reach them any more, but nothing of them should stay either.
     */
    forgetStores(scopeIds: readonly string[]): void {
      for (const scopeId of scopeIds) {
        fullLists.forget(scopeId);
        semantic?.vectors.forget(scopeId);
      }
    },

    async add(caller: Caller, body: AddBody): Promise<AddOutcome> {
      checkContent(body.content);
      const { scope, target } = await targets.forAdd(caller, body);
      const result = await writes
        .add({
          scope,
          id: newRowId(),
          contributorId: target.userId,
          content: body.content,
          foldKey: foldKey(body.content),
          category: recognizedCategory(body.category),
          at: now(),
          audit: auditedAct(caller, target),
        })
        .catch((error: unknown) => {
          // Erased after the checks above and before the write: no member any more.
          throw isMissingContributor(error) ? unknownTargetUser() : error;
        });
      if (!result.created) {
        return { created: false, memory: { id: result.memory.id, content: result.memory.content } };
      }
      semantic?.contentChanged();
      return { created: true, memory: toMemoryItem(result.memory) };
    },

    /**
     * Up to MAX_IMPORT_ITEMS adds to one store in one write (docs/design.md §3.7): each item
     * checked alone (import-items.ts) and added as an add would be, folding into the store and
     * into the items before it; `admit` is told how many items came once the store is known to
     * be the caller's to write (the route's budget of imported items), before anything is written.
     */
    async import(
      caller: Caller,
      body: ImportBody,
      admit: (items: number) => Promise<void>,
    ): Promise<ImportResponse> {
      const { scope, target } = await targets.forAdd(caller, body);
      await admit(body.memories.length);
      const at = now();
      const checked = body.memories.map((item) =>
        checkImportItem(item, { maxContentChars: deps.maxContentChars, now: at }),
      );
      const audit = auditedAct(caller, target);
      const toAdd = checked.flatMap((item) =>
        item.ok
          ? [
              {
                scope,
                id: newRowId(),
                contributorId: target.userId,
                content: item.content,
                foldKey: foldKey(item.content),
                category: item.category,
                at,
                createdAt: item.createdAt,
                audit,
              },
            ]
          : [],
      );
      const written = await writes.addMany(toAdd).catch((error: unknown) => {
        throw isMissingContributor(error) ? unknownTargetUser() : error;
      });
      const response: ImportResponse = { results: [], created: 0, folded: 0, invalid: 0 };
      let next = 0;
      for (const item of checked) {
        if (!item.ok) {
          response.invalid++;
          response.results.push({ status: 'invalid', error: item.error });
          continue;
        }
        const result = written[next++] as AddResult;
        if (result.created) response.created++;
        else response.folded++;
        response.results.push({
          status: result.created ? 'created' : 'folded',
          memory: toMemoryItem(result.memory),
        });
      }
      if (response.created > 0) semantic?.contentChanged();
      return response;
    },

    async update(
      caller: Caller,
      id: string,
      user: string | undefined,
      body: UpdateBody,
    ): Promise<MemoryItem> {
      const hasCategory = 'category' in body;
      if (body.content === undefined && !hasCategory) throw noUpdateFields();
      if (body.content !== undefined) checkContent(body.content);
      const base = deps.optimisticConcurrency ? parseBaseUpdatedAt(body.baseUpdatedAt) : undefined;
      const target = await targets.forMember(caller, user);
      const found = await reachable(caller, target, id, EDIT_POOL);
      if (found.deleted_at !== null) throw memoryNotFound();
      const result = await writes.update({
        scope: scopeOf(caller, found),
        memoryId: found.id,
        content:
          body.content === undefined
            ? undefined
            : { text: body.content, foldKey: foldKey(body.content) },
        category: hasCategory ? { value: recognizedCategory(body.category) } : undefined,
        expectedUpdatedAt: base,
        at: now(),
        audit: auditedAct(caller, target),
      });
      if (result.outcome === 'gone') throw memoryNotFound();
      if (result.outcome === 'conflict') throw editConflict(toMemoryItem(result.memory));
      if (result.newContent) semantic?.contentChanged();
      return toMemoryItem(result.memory);
    },

    async remove(caller: Caller, id: string, user: string | undefined): Promise<void> {
      const target = await targets.forMember(caller, user);
      const found = await reachable(caller, target, id, EDIT_POOL);
      // Idempotent: deleting a deleted memory is fine and changes nothing, but done for
      // another member it is an act all the same, and the audit log records every one.
      if (found.deleted_at !== null) {
        await auditAlone(caller, target, 'delete', found.id);
        return;
      }
      await writes.remove({
        scope: scopeOf(caller, found),
        memoryId: found.id,
        at: now(),
        audit: auditedAct(caller, target),
      });
    },

    /**
     * Deletes every active memory of a store, or of one category of it, in one write
     * (store-erase.ts); a pool needs its owners. Answers how many went.
     */
    async erase(caller: Caller, query: EraseQuery): Promise<number> {
      const category = query.category === undefined ? null : recognizedCategory(query.category);
      if (query.category !== undefined && category === null) throw unknownCategory();
      const { scope, target } = await targets.forErase(caller, query);
      try {
        return await eraseStore(
          { database, repository: repo },
          { scope, category, at: now(), audit: auditedAct(caller, target) },
        );
      } finally {
        deps.changes?.changed([scope]);
      }
    },
  };
}

/** Who acted for whom, when the request acts for another member: what a write audits. */
const auditedAct = (caller: Caller, target: Target): AuditedAct | undefined =>
  target.overridden
    ? { orgId: caller.orgId, actorId: caller.userId, targetId: target.userId }
    : undefined;

function parseBaseUpdatedAt(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/.test(value)
    ? Date.parse(value)
    : Number.NaN;
  if (Number.isNaN(ms)) throw invalidBaseUpdatedAt();
  return ms;
}
