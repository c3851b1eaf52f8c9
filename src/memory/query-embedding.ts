import { type Embedder, embeddedText } from './embedder.ts';
import type { IndexerLog } from './embedding-indexer.ts';
import { unitVector } from './vectors.ts';

/**
 * A search's query as a unit vector, or undefined when it cannot be had in time: the provider
 * fails, its circuit is open, or it takes longer than `timeoutMs`. Search then answers by words
 * alone (docs/design.md §3.4.1), and the failure is logged once per outage, not per search.
 */
export interface QueryEmbedder {
  readonly model: string;
  embed(query: string): Promise<Float32Array | undefined>;
}

export function createQueryEmbedder(options: {
  readonly embedder: Embedder;
  readonly timeoutMs: number;
  readonly log: IndexerLog;
}): QueryEmbedder {
  const { embedder, log } = options;
  let failing = false;
  return {
    model: embedder.model,
    async embed(query) {
      try {
        const [vector] = await embedder.embed(
          [embeddedText(query)],
          AbortSignal.timeout(options.timeoutMs),
        );
        const unit = vector && unitVector(vector);
        if (!unit) throw new Error('the provider answered without a usable vector');
        if (failing) log.info({ model: embedder.model }, 'queries are embedded again');
        failing = false;
        return unit;
      } catch (error) {
        if (!failing) {
          log.warn(
            { err: error, model: embedder.model },
            'embedding a search query failed; searches answer by words alone until it works again',
          );
        }
        failing = true;
        return undefined;
      }
    },
  };
}
