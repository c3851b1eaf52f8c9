import type { Environment } from '../config.ts';
import type { KeyHolder } from '../keys/index.ts';
import { ApiError, badRequest } from '../platform/errors.ts';
import { parseUuid } from '../platform/uuid.ts';
import type { Caller } from '../tenancy/index.ts';
import { memoryEnabled } from '../tenancy/index.ts';
import { memoryFeatureOff, unknownTargetUser } from './memory.errors.ts';
import { CATEGORIES } from './memory.schemas.ts';
import type { MemoryService, RecalledMemory } from './memory.service.ts';
import type { NewProposal, ProposalsService } from './proposals.service.ts';

// The shapes of the chat interface's port (src/gateway/memory/memory-port.ts), written out
// here: memory does not import the gateway, and app.ts's wiring checks that they agree.
type StoreName = 'user' | 'project';
interface Recalled {
  readonly id: string;
  readonly content: string;
  readonly category: string | null;
  readonly store: StoreName;
}
interface Learned {
  readonly action: 'add' | 'update';
  readonly id: string | undefined;
  readonly content: string;
  readonly category: string;
  readonly store: StoreName;
}

export interface ChatMemoryDeps {
  readonly memory: MemoryService;
  readonly proposals: ProposalsService;
  readonly environment: Environment;
  /** MNEMO_MEMORY_EXTRACTION=review: what extraction learns waits for its owner's decision. */
  readonly review: boolean;
  /** Where a proposal the store refused is told. */
  readonly log: { warn(details: object, message: string): void };
  /** The mnemo id of the end user an app registered as `externalId` in the organization. */
  readonly findEndUser: (orgId: string, externalId: string) => Promise<string | undefined>;
}

/**
 * A chat call's memory, as the key's owner: the memory service with their rights in the key's
 * organization (read with the key: no further query), so every rule of the API holds. With
 * `user` (`x-mnemo-user`) the owner acts for that end user or member, as the memory API's
 * `user` does: the organization's override rule, the target a member (400), every act audited.
 */
export function createChatMemory(deps: ChatMemoryDeps) {
  const { memory } = deps;

  /**
   * Whom `x-mnemo-user` names: the end user registered under it as their id in the app, else
   * the member with it as their mnemo id; undefined for the caller themself. Whether the caller
   * may act for them, and whether they are a member at all, the memory service decides as for
   * the API's `user`.
   */
  async function otherUser(caller: Caller, value: string): Promise<string | undefined> {
    const userId = (await deps.findEndUser(caller.orgId, value)) ?? parseUuid(value);
    if (userId === undefined) throw unknownTargetUser();
    const target = await memory.actingFor(caller, userId);
    return target.overridden ? target.userId : undefined;
  }

  return {
    categories: CATEGORIES,
    async open(
      holder: KeyHolder,
      options: { project: string | undefined; user: string | undefined; learn: boolean },
    ) {
      const caller: Caller = {
        userId: holder.userId,
        orgId: holder.orgId,
        ...holder.member,
        // The key's memory rights were checked before: within them, the owner's own.
        scopes: undefined,
      };
      if (!memoryEnabled(deps.environment, caller.memoryEnabled)) throw memoryFeatureOff();
      const { project } = options;
      if (project !== undefined) {
        await memory.checkStore(caller, { project }, options.learn ? 'edit' : 'read');
      }
      const user = options.user === undefined ? undefined : await otherUser(caller, options.user);
      // Proposals wait for the review of the member they are for, who must be able to sign in.
      if (user !== undefined && options.learn && deps.review) throw reviewForOthers();
      const stores: { name: StoreName; project?: string; user?: string }[] =
        project === undefined
          ? [{ name: 'user', ...(user === undefined ? {} : { user }) }]
          : [{ name: 'user' }, { name: 'project', project }];

      async function recall(query: string, wholeStoreUpTo: number, limit: number) {
        const found = await Promise.all(
          stores.map(async (store) =>
            (
              await memory.recall(caller, {
                project: store.project,
                user: store.user,
                query,
                wholeStoreUpTo,
                limit,
              })
            ).map((item) => recalled(item, store.name)),
          ),
        );
        return interleave(found);
      }

      async function save(learned: Learned): Promise<boolean> {
        try {
          if (learned.action === 'update' && learned.id !== undefined) {
            await memory.update(caller, learned.id, user, {
              content: learned.content,
              category: learned.category,
            });
          } else {
            await memory.add(caller, {
              content: learned.content,
              category: learned.category,
              ...(learned.store === 'project' && project !== undefined ? { project } : {}),
              ...(user === undefined ? {} : { user }),
            });
          }
          return true;
        } catch (error) {
          // Refused as the API would refuse it (too long, the memory gone): the others stand.
          if (!(error instanceof ApiError) || error.status >= 500) throw error;
          deps.log.warn(
            { status: error.status, reason: error.message, action: learned.action },
            'a memory learned from a chat call was refused by the store',
          );
          return false;
        }
      }

      return {
        recall: (query: string, options: { wholeStoreUpTo: number; limit: number }) =>
          recall(query, options.wholeStoreUpTo, options.limit),
        related: (query: string, limit: number) => recall(query, 0, limit),
        async learn(learned: readonly Learned[]) {
          if (deps.review) {
            const proposals = learned.map(
              (one): NewProposal => ({
                action: one.action,
                memoryId: one.action === 'update' ? one.id : undefined,
                content: one.content,
                category: one.category,
                project: one.store === 'project' ? project : undefined,
              }),
            );
            const kept = await deps.proposals.propose(caller, holder.keyId, proposals);
            return { saved: 0, proposed: kept, skipped: learned.length - kept };
          }
          let saved = 0;
          // One after another, in the order proposed: a later fact about the same thing wins.
          for (const one of learned) if (await save(one)) saved += 1;
          return { saved, proposed: 0, skipped: learned.length - saved };
        },
      };
    },
  };
}

const recalled = (item: RecalledMemory, store: StoreName): Recalled => ({ ...item, store });

const reviewForOthers = () =>
  badRequest(
    'memories learned for another user cannot wait for review (MNEMO_MEMORY_EXTRACTION=review): call with x-mnemo-memory: read, or without x-mnemo-user',
  );

/** Both stores' best first, taken in turns: their scores are not on one scale. */
function interleave<T>(lists: readonly (readonly T[])[]): T[] {
  const out: T[] = [];
  const longest = Math.max(0, ...lists.map((list) => list.length));
  for (let at = 0; at < longest; at += 1) {
    for (const list of lists) {
      const item = list[at];
      if (item !== undefined) out.push(item);
    }
  }
  return out;
}
