import type { Database } from '../db/database.ts';
import { type Embedder, EmbeddingRefused, embeddedText } from './embedder.ts';
import type {
  ComputedVector,
  MemoryEmbeddingsRepository,
  PendingMemory,
} from './memory-embeddings.repository.ts';
import { encodeVector, unitVector } from './vectors.ts';

/**
 * Embeds memories off the request path (docs/design.md §3.4.1): a loop that finds the active
 * memories without a current vector of the model, embeds them a batch at a time and writes the
 * vectors. Safe with any number of processes on one store: two may embed the same memory (work
 * done twice), but a vector is only written for the memory as it still is, never over a later
 * one, and a store's progress only moves past memories that have their vectors (no work lost).
 *
 * @example
 * const indexer = createEmbeddingIndexer({ database, repository, embedder, log: app.log });
 * indexer.nudge(); // after a commit that added or changed a memory
 * await indexer.idle(); // tests, benchmarks: every memory has its vector
 * await indexer.close();
 */
export interface EmbeddingIndexer {
  /** Something was written: look for work now (unless backing off from a failing provider). */
  nudge(): void;
  /**
   * Asks for a pass now, even while backing off, and resolves once a pass begun after the call
   * found nothing left to embed: every memory committed before the call, by any process, has
   * its vector (or was refused by the provider). While the provider fails it waits for it.
   */
  idle(): Promise<void>;
  /** Stops the loop: a call in flight is abandoned, a write in flight finishes. */
  close(): Promise<void>;
}

/** The logger's two levels used here (pino's signature). */
export interface IndexerLog {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

export interface EmbeddingIndexerOptions {
  readonly database: Database;
  readonly repository: MemoryEmbeddingsRepository;
  readonly embedder: Embedder;
  readonly log: IndexerLog;
  /** Texts per provider call. Default 64. */
  readonly batchSize?: number;
  /** How often to look for other processes' writes when not nudged. Default 30 s. */
  readonly pollMs?: number;
  /** The first wait after a failure, doubled after each further one up to `maxBackoffMs`. */
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /** How long one provider call may take. Default 60 s. */
  readonly callTimeoutMs?: number;
  /** Told once vectors of these stores are committed (the search's kept vectors refresh). */
  readonly vectorsWritten?: (scopeIds: readonly string[]) => void;
}

/** Stores looked at per round: their pending memories fill one batch. */
const SCOPES_PER_ROUND = 64;
/** A text any embedding model takes: what tells a refused text from a refusing provider. */
const PROBE_TEXT = 'memory';

export function createEmbeddingIndexer(options: EmbeddingIndexerOptions): EmbeddingIndexer {
  const { database, repository, embedder, log } = options;
  const model = embedder.model;
  const batchSize = options.batchSize ?? 64;
  const pollMs = options.pollMs ?? 30_000;
  const minBackoffMs = options.minBackoffMs ?? 1000;
  const maxBackoffMs = options.maxBackoffMs ?? 300_000;
  const callTimeoutMs = options.callTimeoutMs ?? 60_000;

  const stopping = new AbortController();
  let closed = false;
  /** A pass was asked for since the current one began. */
  let requested = true;
  /** Ends the current wait early; undefined when not waiting. */
  let wake: (() => void) | undefined;
  let backingOff = false;
  /** Passes begun so far. */
  let passes = 0;
  const waiters: { after: number; resolve: () => void }[] = [];

  /** Waits `ms`, or until woken or closed. */
  const rest = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  const callSignal = () => AbortSignal.any([stopping.signal, AbortSignal.timeout(callTimeoutMs)]);

  /**
   * The texts' vectors, unit length; undefined for a text the provider refused. A batch refused
   * is halved until the text refused is found; and only once a plain text is embedded is the
   * refusal the text's: a provider that refuses everything (a wrong model name, a dimension it
   * does not offer) is an outage to wait out, not a reason to give up on every memory.
   */
  async function embedAll(
    texts: readonly string[],
    round: { providerWorks?: boolean },
  ): Promise<(Float32Array | undefined)[]> {
    try {
      const vectors = await embedder.embed(texts, callSignal());
      if (vectors.length !== texts.length) {
        throw new Error(`${vectors.length} vectors for ${texts.length} texts`);
      }
      round.providerWorks = true;
      return vectors.map((vector) => unitVector(vector));
    } catch (error) {
      if (!(error instanceof EmbeddingRefused)) throw error;
      if (texts.length > 1) {
        const half = Math.ceil(texts.length / 2);
        return [
          ...(await embedAll(texts.slice(0, half), round)),
          ...(await embedAll(texts.slice(half), round)),
        ];
      }
      if (!round.providerWorks) {
        try {
          await embedder.embed([PROBE_TEXT], callSignal());
        } catch (probe) {
          throw new Error(`the provider refuses even a plain text: ${String(probe)}`, {
            cause: error,
          });
        }
        round.providerWorks = true;
      }
      return [undefined];
    }
  }

  /** One batch: pending memories of the stores with changes, embedded and written. */
  async function round(): Promise<boolean> {
    const scopes = await repository.pendingScopes(database.reader, model, SCOPES_PER_ROUND);
    if (scopes.length === 0) return false;
    const plan: { scopeId: string; memories: PendingMemory[]; through: number }[] = [];
    let room = batchSize;
    for (const scope of scopes) {
      if (room === 0) break;
      const memories = await repository.pendingMemories(database.reader, {
        scopeId: scope.id,
        model,
        after: Number(scope.done),
        through: Number(scope.version),
        limit: room,
      });
      room -= memories.length;
      // All of the store's pending memories, or the first `room` of them in change order.
      const last = memories.at(-1);
      const through = room > 0 || !last ? Number(scope.version) : Number(last.version);
      plan.push({ scopeId: scope.id, memories, through });
    }
    const memories = plan.flatMap((entry) => entry.memories);
    const texts = memories.map((memory) => embeddedText(memory.content));
    const vectors = texts.length === 0 ? [] : await embedAll(texts, {});
    const computed: ComputedVector[] = memories.map((memory, index) => {
      const vector = vectors[index];
      if (!vector) {
        log.warn(
          { memoryId: memory.id, model },
          'the embedding provider refused a memory: it is found by its words only',
        );
      }
      return {
        memoryId: memory.id,
        version: Number(memory.version),
        vector: vector ? encodeVector(vector) : new Uint8Array(0),
      };
    });
    await database.write(async (trx) => {
      await repository.lockScopes(
        trx,
        plan.map((entry) => entry.scopeId),
      );
      await repository.writeVectors(trx, model, computed);
      for (const entry of plan) {
        await repository.advanceProgress(trx, entry.scopeId, model, entry.through);
      }
    });
    if (memories.length > 0) options.vectorsWritten?.(plan.map((entry) => entry.scopeId));
    return true;
  }

  async function loop(): Promise<void> {
    let backoffMs = minBackoffMs;
    let failing = false;
    while (!closed) {
      requested = false;
      const pass = ++passes;
      try {
        while (!closed && (await round())) {}
        if (closed) break;
        if (failing) log.info({ model }, 'the embedding indexer works again');
        failing = false;
        backoffMs = minBackoffMs;
        for (const waiter of waiters.splice(0)) {
          if (waiter.after < pass) waiter.resolve();
          else waiters.push(waiter);
        }
        if (!requested) await rest(pollMs);
      } catch (error) {
        if (closed) break;
        // Once per outage, not once per memory or per retry.
        if (!failing) {
          log.warn(
            { err: error, model },
            'the embedding indexer failed; memories are found by their words until it works again',
          );
        }
        failing = true;
        backingOff = true;
        await rest(backoffMs);
        backingOff = false;
        backoffMs = Math.min(backoffMs * 2, maxBackoffMs);
      }
    }
    for (const waiter of waiters.splice(0)) waiter.resolve();
  }

  const running = loop();

  return {
    nudge() {
      requested = true;
      if (!backingOff) wake?.();
    },
    idle() {
      if (closed) return Promise.resolve();
      return new Promise<void>((resolve) => {
        waiters.push({ after: passes, resolve });
        requested = true;
        wake?.();
      });
    },
    async close() {
      if (closed) return running;
      closed = true;
      stopping.abort();
      wake?.();
      return running;
    },
  };
}
