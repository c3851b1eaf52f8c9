import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../src/app.ts';
import { hybridSearchEnv } from '../../src/testing/search-config.ts';
import { startOpenAiSimulator } from '../../src/testing/simulators/openai-simulator.ts';

/**
 * What the quality bench needs to run the app with hybrid search (vectors fused with the lexical
 * ranking): this file is the one place where that is configured.
 */
export interface HybridSearch {
  /** What is measured, for the report: `text-embedding-3-small at the OpenAI simulator`. */
  readonly label: string;
  /** Starts what the embeddings come from (a simulator) for one app. */
  start(): Promise<HybridApp>;
}

export interface HybridApp {
  /** Environment for `loadConfig`, over the bench's own (MNEMO_SEARCH_EMBEDDING_MODEL, …). */
  readonly env: Readonly<Record<string, string>>;
  /** Dependencies for `buildApp` beyond the config and the database, if any. */
  readonly deps?: Partial<AppDeps>;
  /** Resolves once every memory added so far has its vector (the indexer is idle). */
  settle(app: FastifyInstance): Promise<void>;
  stop(): Promise<void>;
}

const API_KEY = 'sk-bench';

/**
 * Hybrid search with the OpenAI simulator's embeddings: hashed words and three-letter pieces of
 * words (src/testing/simulators/simulated-embedding.ts). Texts that share words or their pieces
 * are near, but nothing is known of meaning: the hybrid rows measure the fusion and the
 * plumbing, not what a real embedding model would find.
 */
export const HYBRID_SEARCH: HybridSearch | undefined = {
  label: 'text-embedding-3-small at the OpenAI simulator',
  async start() {
    const simulator = await startOpenAiSimulator({ apiKey: API_KEY });
    return {
      env: hybridSearchEnv({ kind: 'openai', baseUrl: simulator.baseUrl, apiKey: API_KEY }),
      async settle(app) {
        await app.embeddingIndexer?.idle();
      },
      stop: () => simulator.close(),
    };
  },
};
