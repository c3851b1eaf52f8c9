import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The embedding model hybrid search is given in tests: one model of one simulated provider. */
export interface SearchModel {
  /** The provider's kind: `openai` (any OpenAI-compatible server) or `gemini`. */
  readonly kind: 'openai' | 'gemini';
  /** The API root as the provider's SDK takes it (a simulator's `baseUrl`). */
  readonly baseUrl: string;
  /** The key the provider expects. */
  readonly apiKey: string;
  /** The model's name at the provider. Default: text-embedding-3-small or gemini-embedding-001. */
  readonly upstream?: string;
  readonly dimensions?: number;
  readonly minSimilarity?: number;
}

/** The catalog id the model gets. */
export const SEARCH_MODEL_ID = 'sim/embedder';

/**
 * The environment that turns hybrid search on with `model`: a gateway file (mnemo.config.json's
 * format) in a temp folder naming the model for search, and the provider's key. For
 * `buildTestApp(env)`, or any process's environment.
 *
 * @example
 * const sim = await startOpenAiSimulator({ apiKey: 'sk-sim' });
 * const t = await buildTestApp(hybridSearchEnv({ kind: 'openai', baseUrl: sim.baseUrl, apiKey: 'sk-sim' }));
 * await t.app.embeddingIndexer?.idle();
 */
export function hybridSearchEnv(model: SearchModel): Record<string, string> {
  const upstream =
    model.upstream ?? (model.kind === 'openai' ? 'text-embedding-3-small' : 'gemini-embedding-001');
  const file = {
    providers: { sim: { kind: model.kind, baseUrl: model.baseUrl, apiKeyEnv: 'SIM_API_KEY' } },
    models: [
      {
        id: SEARCH_MODEL_ID,
        provider: 'sim',
        upstream,
        type: 'embedding',
        ...(model.dimensions !== undefined && { dimensions: model.dimensions }),
        ...(model.minSimilarity !== undefined && { minSimilarity: model.minSimilarity }),
      },
    ],
    search: { embeddingModel: SEARCH_MODEL_ID },
  };
  const path = join(mkdtempSync(join(tmpdir(), 'mnemo-search-')), 'mnemo.config.json');
  writeFileSync(path, JSON.stringify(file));
  return { MNEMO_CONFIG: path, SIM_API_KEY: model.apiKey };
}
