import type { Database } from '../db/database.ts';
import { newRowId } from '../db/row-id.ts';
import { ApiError } from '../platform/errors.ts';
import { parseUuid } from '../platform/uuid.ts';
import type { Caller } from '../tenancy/index.ts';
import { proposalNotFound } from './memory.errors.ts';
import type { MemoryItem } from './memory.schemas.ts';
import type { MemoryService } from './memory.service.ts';
import { recognizedCategory } from './memory-item.ts';
import type { ProposalRow, ProposalsRepository } from './proposals.repository.ts';
import type { Proposal } from './proposals.schemas.ts';

/** What extraction found, for one member's memories (chat-memory.ts). */
export interface NewProposal {
  readonly action: 'add' | 'update';
  /** The memory an update changes. */
  readonly memoryId?: string | undefined;
  readonly content: string;
  readonly category: string | null;
  /** The project pool it goes to; none for the member's own memories. */
  readonly project?: string | undefined;
}

export interface ProposalsServiceDeps {
  readonly database: Database;
  readonly repository: ProposalsRepository;
  readonly memory: MemoryService;
  readonly now?: () => number;
}

/**
 * Proposals a member has not decided yet, at most: past it, extraction's further proposals are
 * not kept (and logged), so an unattended review queue cannot grow without bound.
 */
export const MAX_PENDING_PROPOSALS = 500;

/**
 * The review queue of MNEMO_MEMORY_EXTRACTION=review (docs/memory-chat.md): extraction's
 * proposals wait here; accepting one saves it through the memory API's own add or update, as
 * the member, so it folds, is audited and reaches the sync feed as any save does.
 */
export function createProposalsService(deps: ProposalsServiceDeps) {
  const { database, repository: repo, memory } = deps;
  const now = deps.now ?? Date.now;

  async function shown(caller: Caller, row: ProposalRow): Promise<Proposal> {
    const category = recognizedCategory(row.category);
    let current: Proposal['current'];
    if (row.action === 'update' && row.memory_id !== null) {
      current = await memory.get(caller, row.memory_id, undefined).catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      });
    }
    return {
      id: row.id,
      action: row.action,
      ...(row.memory_id === null ? {} : { memoryId: row.memory_id }),
      content: row.content,
      ...(category === null ? {} : { category }),
      ...(row.project_id === null ? {} : { projectId: row.project_id }),
      ...(current === undefined ? {} : { current }),
      keyId: row.key_id,
      createdAt: new Date(row.created_at).toISOString(),
    };
  }

  async function found(caller: Caller, rawId: string): Promise<ProposalRow> {
    const id = parseUuid(rawId);
    const row = id && (await repo.find(caller.orgId, caller.userId, id));
    if (!row) throw proposalNotFound();
    return row;
  }

  return {
    /**
     * Keeps proposals for `caller`'s review, as many as the queue takes; says how many it kept.
     */
    async propose(
      caller: Caller,
      keyId: string,
      proposals: readonly NewProposal[],
    ): Promise<number> {
      return database.write(async (trx) => {
        const room =
          MAX_PENDING_PROPOSALS -
          (await repo.pendingUpTo(trx, caller.orgId, caller.userId, MAX_PENDING_PROPOSALS));
        const at = now();
        const rows = proposals.slice(0, Math.max(0, room)).map(
          (proposal): ProposalRow => ({
            id: newRowId(),
            org_id: caller.orgId,
            user_id: caller.userId,
            key_id: keyId,
            project_id: proposal.project ?? null,
            action: proposal.action,
            memory_id: proposal.memoryId ?? null,
            content: proposal.content,
            category: proposal.category,
            created_at: at,
          }),
        );
        await repo.insertMany(trx, rows);
        return rows.length;
      });
    },

    async list(caller: Caller): Promise<Proposal[]> {
      const rows = await repo.list(caller.orgId, caller.userId);
      return Promise.all(rows.map((row) => shown(caller, row)));
    },

    /**
     * Saves the proposal as the member would with the API, then forgets it. A save the API
     * refuses (the memory is gone, the pool no longer editable) is that refusal, and the
     * proposal stays to be dropped.
     */
    async accept(caller: Caller, rawId: string) {
      const row = await found(caller, rawId);
      const category = row.category ?? undefined;
      let answer: { memory: MemoryItem | { id: string; content: string }; folded: boolean };
      if (row.action === 'update' && row.memory_id !== null) {
        const updated = await memory.update(caller, row.memory_id, undefined, {
          content: row.content,
          ...(category === undefined ? {} : { category }),
        });
        answer = { memory: updated, folded: false };
      } else {
        const outcome = await memory.add(caller, {
          content: row.content,
          ...(category === undefined ? {} : { category }),
          ...(row.project_id === null ? {} : { project: row.project_id }),
        });
        answer = { memory: outcome.memory, folded: !outcome.created };
      }
      await database.write((trx) => repo.remove(trx, caller.orgId, caller.userId, row.id));
      return answer;
    },

    async drop(caller: Caller, rawId: string): Promise<void> {
      const row = await found(caller, rawId);
      const removed = await database.write((trx) =>
        repo.remove(trx, caller.orgId, caller.userId, row.id),
      );
      if (!removed) throw proposalNotFound();
    },
  };
}

export type ProposalsService = ReturnType<typeof createProposalsService>;
