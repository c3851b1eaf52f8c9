import { type Embedder, EmbeddingRefused } from '../memory/index.ts';
import type { Catalog, EmbeddingModelConfig } from './catalog.ts';
import type { CircuitBreaker } from './circuit-breaker.ts';
import type {
  EmbeddingPurpose,
  EmbeddingsProvider,
  Transport,
  UpstreamFailure,
} from './provider.ts';
import { createEmbeddingsProvider } from './providers/provider-kinds.ts';

/**
 * Memory search's embedding model as memory's Embedder port (src/memory/embedder.ts): one for
 * the memories (documents), one for the queries, over the same model and vector space.
 */
export interface SearchEmbedders {
  readonly documents: Embedder;
  readonly queries: Embedder;
}

/** Statuses that refuse the texts themselves: sending them again would fail again. */
const REFUSING = new Set([400, 413, 422]);

/**
 * The embedders of the catalog's search model, or undefined when search has none. Calls go
 * through `breaker` under the model's id: after repeated failures the model is left alone for a
 * while, and a search answers by words at once instead of waiting for its timeout each time.
 *
 * @example
 * const embedders = createSearchEmbedders(catalog, transport, createCircuitBreaker());
 * const [vector] = await embedders.queries.embed(['green tea'], AbortSignal.timeout(2000));
 */
export function createSearchEmbedders(
  catalog: Catalog,
  transport: Transport,
  breaker: CircuitBreaker,
): SearchEmbedders | undefined {
  const model = catalog.search.embeddingModel;
  if (!model) return undefined;
  const config = catalog.providers.get(model.provider);
  const provider = config && createEmbeddingsProvider(config, transport);
  // The catalog's checks make both impossible; said plainly should they ever not.
  if (!provider) throw new Error(`no embeddings API for ${model.id}`);
  return {
    documents: embedder(provider, model, 'document', breaker),
    queries: embedder(provider, model, 'query', breaker),
  };
}

/** The name vectors are kept under: the id, and the dimensions asked for, which change them. */
export function vectorSpaceOf(model: EmbeddingModelConfig): string {
  return model.dimensions === undefined ? model.id : `${model.id}@${model.dimensions}`;
}

function embedder(
  provider: EmbeddingsProvider,
  model: EmbeddingModelConfig,
  purpose: EmbeddingPurpose,
  breaker: CircuitBreaker,
): Embedder {
  return {
    model: vectorSpaceOf(model),
    async embed(texts, signal) {
      if (!breaker.admits(model.id)) {
        const wait = breaker.reopensInMs(model.id);
        throw new Error(
          `${model.id} failed repeatedly; not called again${wait === undefined ? ' yet' : ` for ${Math.ceil(wait / 1000)} s`}`,
        );
      }
      const outcome = await provider.embed({ texts, model, purpose, signal });
      if (outcome.ok) {
        breaker.succeeded(model.id);
        return outcome.value;
      }
      const { failure } = outcome;
      if (failure.kind === 'status' && REFUSING.has(failure.status)) {
        // The provider answered: it is well, the texts are not.
        throw new EmbeddingRefused(`${model.id} refused the texts: ${failure.error.message}`);
      }
      breaker.failed(model.id, failure.kind === 'status' ? failure.retryAfterMs : undefined);
      throw new Error(`${model.id}: ${describe(failure)}`);
    },
  };
}

function describe(failure: UpstreamFailure): string {
  switch (failure.kind) {
    case 'unreachable':
      return `unreachable (${failure.message})`;
    case 'timeout':
      return 'no answer in time';
    case 'key-refused':
      return `refused mnemo's key (${failure.status}: ${failure.message})`;
    case 'status':
      return `${failure.status}: ${failure.error.message}`;
  }
}
