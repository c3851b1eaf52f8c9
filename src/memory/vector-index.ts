import type { QueryRunner } from '../db/prepared-query.ts';
import type { ChangedMemory, MemoryEmbeddingsRepository } from './memory-embeddings.repository.ts';
import { decodeVector } from './vectors.ts';

/** A memory near the query, and how near: the cosine of the angle between their vectors. */
export interface Neighbour {
  readonly id: string;
  readonly similarity: number;
}

export interface NearestOptions {
  /** Only memories of this category; null: any. */
  readonly category: string | null;
  readonly limit: number;
  /** Less similar memories are not neighbours at all. */
  readonly minSimilarity: number;
}

/** One store's current vectors of one model, as a matrix for dot products. */
export interface StoreVectors {
  /** The nearest memories to `query` (a unit vector), nearest first. */
  nearest(query: Float32Array, options: NearestOptions): Neighbour[];
}

export interface VectorIndex {
  /**
   * The store's current vectors of `model` as of its change counter `version` (read before:
   * every change up to it is in the answer), from memory when kept, brought up to date with the
   * changes since.
   */
  storeVectors(
    runner: QueryRunner,
    scopeId: string,
    version: number,
    model: string,
  ): Promise<StoreVectors>;
  /** Vectors of the store's memories were just written (by this process's indexer). */
  vectorsWritten(scopeId: string): void;
  /** Drops every matrix of the store: the store was erased. */
  forget(scopeId: string): void;
}

export interface VectorIndexOptions {
  readonly repository: MemoryEmbeddingsRepository;
  /** Total size of the kept matrices, in bytes; least recently used first out. */
  readonly maxBytes: number;
}

/** What a kept row costs beyond its vector: its id, category and map entry, roughly. */
const ROW_OVERHEAD_BYTES = 160;
/**
 * How often memories seen without a vector are looked for again, when nothing else says they
 * may have one: this process's indexer says so at once; another process's is seen this late.
 * A store being embedded for the first time has all its memories waiting: reading them again on
 * every search would cost a read of the whole store each time.
 */
const WAITING_RECHECK_MS = 1000;

/**
 * Per store and model, the vectors of its active memories as one Float32Array, kept in process
 * and brought up to date by the changes since the counter it was read at (the list cache's
 * reasoning: a change advances the counter in its own transaction, so reading the counter, then
 * the rows changed after the last one seen, misses nothing, in this process or another). A vector
 * written later for a memory the matrix saw without one does not move the counter: such memories
 * are remembered, and the rows from the oldest of them on are read again (at once when this
 * process's indexer wrote vectors of the store, else at most once a second) until they all have
 * their vectors. Similarity is computed here, in process: a store of 100,000 memories of 512
 * dimensions is 200 MB of floats and a scan of 51 million multiply-adds.
 */
export function createVectorIndex(options: VectorIndexOptions): VectorIndex {
  const { repository } = options;
  // A Map iterates in insertion order: re-inserting on use keeps the oldest use first.
  const kept = new Map<string, ScopeMatrix>();
  let bytes = 0;

  function keep(key: string, matrix: ScopeMatrix): void {
    const previous = kept.get(key);
    if (previous) {
      bytes -= previous.keptBytes;
      kept.delete(key);
    }
    const size = matrix.bytes();
    if (size > options.maxBytes) return;
    for (const [oldest, entry] of kept) {
      if (bytes + size <= options.maxBytes) break;
      bytes -= entry.keptBytes;
      kept.delete(oldest);
    }
    matrix.keptBytes = size;
    kept.set(key, matrix);
    bytes += size;
  }

  const keyOf = (scopeId: string, model: string) => `${scopeId}\u0000${model}`;

  return {
    async storeVectors(runner, scopeId, version, model) {
      const key = keyOf(scopeId, model);
      const matrix = kept.get(key) ?? new ScopeMatrix();
      await matrix.update(() => matrix.refresh(runner, repository, scopeId, model, version));
      keep(key, matrix);
      return matrix;
    },
    vectorsWritten(scopeId) {
      for (const [key, matrix] of kept) {
        if (key.startsWith(`${scopeId}\u0000`)) matrix.vectorsArrived = true;
      }
    },
    forget(scopeId) {
      for (const [key, matrix] of kept) {
        if (!key.startsWith(`${scopeId}\u0000`)) continue;
        bytes -= matrix.keptBytes;
        kept.delete(key);
      }
    },
  };
}

class ScopeMatrix implements StoreVectors {
  /** The counter up to which every change is applied; -1 before the first read. */
  private through = -1;
  /** Active memories seen without a current vector, by id: their version. */
  private readonly waiting = new Map<string, number>();
  private dimensions = 0;
  private rows = 0;
  private matrix = new Float32Array(0);
  private ids: string[] = [];
  private categories: (string | null)[] = [];
  private readonly rowOf = new Map<string, number>();
  /** Rows the refresh under way may add at most: the matrix grows to it at once. */
  private expected = 0;
  /** When the waiting memories were last read again. */
  private waitingReadAt = 0;
  /** Vectors of the store were written since: the waiting memories may have theirs. */
  vectorsArrived = false;
  /** One refresh at a time: each applies a later read of the store than the one before. */
  private queue: Promise<void> = Promise.resolve();
  keptBytes = 0;

  update(refresh: () => Promise<void>): Promise<void> {
    const next = this.queue.then(refresh);
    this.queue = next.catch(() => undefined);
    return next;
  }

  bytes(): number {
    return this.matrix.byteLength + this.ids.length * ROW_OVERHEAD_BYTES;
  }

  async refresh(
    runner: QueryRunner,
    repository: MemoryEmbeddingsRepository,
    scopeId: string,
    model: string,
    version: number,
  ): Promise<void> {
    if (version <= this.through) {
      if (this.waiting.size === 0) return;
      if (!this.vectorsArrived && Date.now() - this.waitingReadAt < WAITING_RECHECK_MS) return;
    }
    this.vectorsArrived = false;
    this.waitingReadAt = Date.now();
    let from = this.through < 0 ? 0 : this.through;
    for (const waiting of this.waiting.values()) from = Math.min(from, waiting - 1);
    const changed = await repository.changedSince(runner, scopeId, model, from);
    this.expected = this.rows + changed.length;
    for (const row of changed) this.apply(row);
    this.through = Math.max(this.through, version);
  }

  private apply(row: ChangedMemory): void {
    this.remove(row.id);
    if (row.deleted_at !== null) {
      this.waiting.delete(row.id);
      return;
    }
    if (row.vector === null) {
      this.waiting.set(row.id, Number(row.version));
      return;
    }
    this.waiting.delete(row.id);
    // Empty: the provider refused the text; it is found by its words only.
    const vector = decodeVector(row.vector);
    if (vector.length === 0) return;
    if (this.dimensions === 0) this.dimensions = vector.length;
    if (vector.length !== this.dimensions) return;
    this.append(row.id, row.category, vector);
  }

  private append(id: string, category: string | null, vector: Float32Array): void {
    const d = this.dimensions;
    if ((this.rows + 1) * d > this.matrix.length) {
      const grown = new Float32Array(Math.max(16, this.rows * 2, this.expected) * d);
      grown.set(this.matrix.subarray(0, this.rows * d));
      this.matrix = grown;
    }
    this.matrix.set(vector, this.rows * d);
    this.ids[this.rows] = id;
    this.categories[this.rows] = category;
    this.rowOf.set(id, this.rows);
    this.rows += 1;
  }

  /** Takes a memory out: the last row moves into its place. */
  private remove(id: string): void {
    const row = this.rowOf.get(id);
    if (row === undefined) return;
    this.rowOf.delete(id);
    const last = this.rows - 1;
    if (row !== last) {
      const d = this.dimensions;
      this.matrix.copyWithin(row * d, last * d, (last + 1) * d);
      const moved = this.ids[last] as string;
      this.ids[row] = moved;
      this.categories[row] = this.categories[last] ?? null;
      this.rowOf.set(moved, row);
    }
    this.ids.length = last;
    this.categories.length = last;
    this.rows = last;
  }

  nearest(query: Float32Array, options: NearestOptions): Neighbour[] {
    const d = this.dimensions;
    if (query.length !== d || options.limit <= 0) return [];
    const best = new TopK(options.limit);
    const { matrix, categories } = this;
    for (let row = 0; row < this.rows; row++) {
      if (options.category !== null && categories[row] !== options.category) continue;
      let dot = 0;
      const base = row * d;
      for (let i = 0; i < d; i++) dot += (query[i] as number) * (matrix[base + i] as number);
      if (dot >= options.minSimilarity) best.offer(row, dot);
    }
    return best
      .rows()
      .map(({ row, score }) => ({ id: this.ids[row] as string, similarity: score }))
      .sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : 1));
  }
}

/** The k highest scores offered, in a min-heap: the lowest kept is the one to beat. */
class TopK {
  private readonly k: number;
  private readonly heap: { row: number; score: number }[] = [];

  constructor(k: number) {
    this.k = k;
  }

  offer(row: number, score: number): void {
    const heap = this.heap;
    if (heap.length < this.k) {
      heap.push({ row, score });
      this.up(heap.length - 1);
    } else if (score > (heap[0] as { score: number }).score) {
      heap[0] = { row, score };
      this.down(0);
    }
  }

  rows(): readonly { row: number; score: number }[] {
    return this.heap;
  }

  private up(at: number): void {
    const heap = this.heap;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if ((heap[parent] as { score: number }).score <= (heap[at] as { score: number }).score)
        return;
      [heap[parent], heap[at]] = [heap[at] as never, heap[parent] as never];
      at = parent;
    }
  }

  private down(at: number): void {
    const heap = this.heap;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let smallest = at;
      const score = (i: number) => (heap[i] as { score: number }).score;
      if (left < heap.length && score(left) < score(smallest)) smallest = left;
      if (right < heap.length && score(right) < score(smallest)) smallest = right;
      if (smallest === at) return;
      [heap[smallest], heap[at]] = [heap[at] as never, heap[smallest] as never];
      at = smallest;
    }
  }
}
