import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { KeyHolder } from '../../keys/index.ts';
import type { CallUsage } from '../call-usage.ts';
import type { Catalog } from '../catalog.ts';
import type { ChatRequest } from '../chat.schemas.ts';
import type { Dispatcher } from '../dispatch.ts';
import { GatewayConfigError } from '../gateway-config.ts';
import { GatewayError } from '../openai-errors.ts';
import { createExtraction, newUserTurns } from './extraction.ts';
import type { ChatMemorySession, ChatMemoryStore, RecalledMemory } from './memory-port.ts';
import { type MemoryUse, memoryUseOf, RECALLED_HEADER } from './memory-switch.ts';
import { memoryBlock, recallQuery, withinBudget, withMemoryMessage } from './recall-prompt.ts';

export interface MemoryCallsConfig {
  /** The most tokens (estimated) of memories a prompt is given. */
  readonly recallTokens: number;
  /** A store with at most this many memories is recalled whole. */
  readonly wholeStoreUpTo: number;
  /** The model (or the router) extraction calls go to. */
  readonly extractionModel: string;
}

export interface MemoryCallsDeps {
  readonly store: ChatMemoryStore;
  readonly dispatcher: Dispatcher;
  readonly usage: CallUsage;
  readonly log: FastifyBaseLogger;
  readonly config: MemoryCallsConfig;
}

/**
 * The model extraction calls use: MNEMO_MEMORY_EXTRACTION_MODEL, a chat model of the catalog or
 * its router; the router when unset. Any other name stops the start.
 */
export function extractionModelId(catalog: Catalog, configured: string | undefined): string {
  if (configured === undefined) return catalog.router.id;
  if (configured === catalog.router.id || catalog.models.some((model) => model.id === configured)) {
    return configured;
  }
  const known = [...catalog.models.map((model) => model.id), catalog.router.id].join(', ');
  throw new GatewayConfigError(
    `invalid configuration: MNEMO_MEMORY_EXTRACTION_MODEL: ${JSON.stringify(configured)} is not a chat model of the catalog (configured: ${known})`,
  );
}

/** A call with its memories in: what to send, what to tell the caller, what to do after. */
export interface MemoryCall {
  /** The request with the memory block, or as it came when nothing was recalled. */
  readonly chat: ChatRequest;
  /** `x-mnemo-memories`: the ids recalled into the prompt, comma-separated (empty: none). */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Called once the answer went out whole and well: with `read-write`, starts learning from the
   * conversation in the background. `reply` is the assistant's answer text, when it had one.
   */
  answered(reply: string | null): void;
}

/** Best matches a recall searches for when the store is too large to be recalled whole. */
const RECALL_LIMIT = 30;
/** Stored memories an extraction is shown, besides those recalled. */
const RELATED_LIMIT = 20;
/** Known memories an extraction is shown at most. */
const KNOWN_LIMIT = 50;
/** Extractions running at once, at most: past it, one is skipped (and logged), never queued. */
const MAX_RUNNING = 64;

/**
 * Memory in chat calls (docs/memory-chat.md): recall before the call goes to its provider;
 * with `read-write`, after the answer went out, an extraction call whose proposals are stored
 * through the memory API's own add and update. Learning never delays or fails an answer: it
 * runs after it, and its failures are logged and recorded in usage.
 *
 * @example
 * const call = await memoryCalls.prepare(use, request.keyHolder, chat);
 * const dispatched = await dispatcher.complete(call.chat, signal);
 * reply.headers({ ...dispatched.headers, ...call.headers }).send(answer);
 * call.answered(answerText);
 */
export function createMemoryCalls(deps: MemoryCallsDeps) {
  const { config, log } = deps;
  const extraction = createExtraction(deps.store.categories);
  const running = new Set<Promise<void>>();
  const closing = new AbortController();

  async function learn(
    session: ChatMemorySession,
    holder: KeyHolder,
    chat: ChatRequest,
    recalled: readonly RecalledMemory[],
    reply: string | null,
    withProject: boolean,
  ) {
    const newTurns = newUserTurns(chat.messages);
    if (newTurns.turns.length === 0) return;
    const startedAt = Date.now();
    // The memories an update may name: those recalled, and those nearest to what was said.
    const related = await session.related(newTurns.turns.join('\n'), RELATED_LIMIT);
    const known = new Map<string, RecalledMemory>();
    for (const memory of [...related, ...recalled]) {
      if (known.size < KNOWN_LIMIT) known.set(memory.id, memory);
    }
    const shown = [...known.values()];
    const request = extraction.request({
      model: config.extractionModel,
      known: shown,
      newTurns,
      reply,
      withProject,
    });
    const dispatched = await deps.dispatcher.complete(request, closing.signal);
    const finished = { caller: holder, startedAt, kind: 'extraction' as const };
    if (!dispatched.ok) {
      deps.usage.finished({
        ...finished,
        model: dispatched.model,
        status: dispatched.error.status,
        usage: undefined,
      });
      log.warn(
        { status: dispatched.error.status, error: dispatched.error.message },
        'the extraction call after a chat call failed: nothing learned from it',
      );
      return;
    }
    deps.usage.finished({
      ...finished,
      model: dispatched.model,
      status: 200,
      usage: dispatched.value.usage,
    });
    const text = dispatched.value.choices[0]?.message.content ?? null;
    const learned = extraction.parse(text, shown, withProject);
    if (!learned) {
      log.warn(
        { model: dispatched.model.id, answer: text?.slice(0, 500) ?? null },
        'the extraction call answered no document of its schema: dropped, nothing stored',
      );
      return;
    }
    if (learned.length === 0) return;
    const outcome = await session.learn(learned);
    log.info({ ...outcome, keyId: holder.keyId }, 'memories learned from a chat call');
  }

  function learnLater(run: () => Promise<void>) {
    if (running.size >= MAX_RUNNING) {
      log.warn(
        { running: running.size },
        'too many extractions running: one chat call not learned from',
      );
      return;
    }
    const job = new Promise<void>((resolve) => setImmediate(resolve))
      .then(run)
      .catch((error: unknown) => {
        log.error({ err: error }, 'learning from a chat call failed');
      })
      .finally(() => running.delete(job));
    running.add(job);
  }

  return {
    /** Refuses, as `prepare` would, a use the store does not allow; recalls nothing. */
    async check(use: MemoryUse, holder: KeyHolder): Promise<void> {
      await deps.store.open(holder, {
        project: use.project,
        user: use.user,
        learn: use.mode === 'read-write',
      });
    },

    async prepare(use: MemoryUse, holder: KeyHolder, chat: ChatRequest): Promise<MemoryCall> {
      const withProject = use.project !== undefined;
      const session = await deps.store.open(holder, {
        project: use.project,
        user: use.user,
        learn: use.mode === 'read-write',
      });
      const recalled = await session.recall(recallQuery(chat.messages), {
        wholeStoreUpTo: config.wholeStoreUpTo,
        limit: RECALL_LIMIT,
      });
      const kept = withinBudget(recalled, config.recallTokens);
      return {
        chat:
          kept.length === 0
            ? chat
            : withMemoryMessage(chat, memoryBlock(kept.map((one) => one.line))),
        headers: { [RECALLED_HEADER]: kept.map((one) => one.memory.id).join(',') },
        answered(reply) {
          if (use.mode !== 'read-write') return;
          const injected = kept.map((one) => one.memory);
          learnLater(() => learn(session, holder, chat, injected, reply, withProject));
        },
      };
    },

    /**
     * The memory of one HTTP call, as its headers and key decide (memory-switch.ts): undefined
     * when it uses none, and the request then goes out exactly as it came.
     */
    async forCall(
      headers: IncomingHttpHeaders,
      holder: KeyHolder,
      chat: ChatRequest,
    ): Promise<MemoryCall | undefined> {
      const use = memoryUseOf(headers, holder);
      if (use instanceof GatewayError) throw use;
      return use && this.prepare(use, holder, chat);
    },

    /** Resolves once every extraction started before the call has finished. */
    async idle(): Promise<void> {
      while (running.size > 0) await Promise.allSettled([...running]);
    },

    /** Gives up the extraction calls in flight (the process is stopping) and waits for them. */
    async close(): Promise<void> {
      closing.abort();
      await this.idle();
    },
  };
}

export type MemoryCalls = ReturnType<typeof createMemoryCalls>;
