import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Type } from 'typebox';
import { Value } from 'typebox/value';
import type { CatalogLocation } from '../config.ts';
import { BUILTIN_PROVIDERS } from './builtin-models.ts';
import {
  type Catalog,
  EMBEDDING_KINDS,
  type EmbeddingModelConfig,
  type ModelConfig,
  PROVIDER_KINDS,
  type ProviderConfig,
  type ProviderKind,
} from './catalog.ts';

/** The gateway's configuration is unusable: the message names the file (or variable) and path. */
export class GatewayConfigError extends Error {
  override readonly name = 'GatewayConfigError';
}

const DEFAULT_FILE = 'mnemo.config.json';
const DEFAULT_ROUTER_ID = 'auto';

// The file format of docs/design.md §4, which outside tools rely on: keep it exactly.
const ProviderEntry = Type.Object(
  {
    kind: Type.Enum(PROVIDER_KINDS),
    baseUrl: Type.String({ minLength: 1 }),
    apiKeyEnv: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }),
  },
  { additionalProperties: false },
);

// One entry for both types of model: which fields a type takes is checked with the meaning
// (meaningProblems), so that a misplaced field is named as such.
const ModelEntry = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    provider: Type.String({ minLength: 1 }),
    upstream: Type.String({ minLength: 1 }),
    type: Type.Optional(Type.Enum(['chat', 'embedding'])),
    vision: Type.Optional(Type.Boolean()),
    tools: Type.Optional(Type.Boolean()),
    jsonOutput: Type.Optional(Type.Boolean()),
    reasoning: Type.Optional(Type.Boolean()),
    // Required of a chat model (meaningProblems).
    contextWindow: Type.Optional(Type.Integer({ minimum: 1 })),
    // None for a model whose calls cost nothing known (a self-hosted server): its usage is
    // recorded with an unknown cost, never a made-up $0.
    price: Type.Optional(
      Type.Object(
        { input: Type.Number({ minimum: 0 }), output: Type.Number({ minimum: 0 }) },
        { additionalProperties: false },
      ),
    ),
    // Embedding models only.
    dimensions: Type.Optional(Type.Integer({ minimum: 1 })),
    minSimilarity: Type.Optional(Type.Number({ minimum: -1, maximum: 1 })),
  },
  { additionalProperties: false },
);

/** Fields of a chat model, which an embedding model does not take; and the other way round. */
const CHAT_FIELDS = ['vision', 'tools', 'jsonOutput', 'reasoning', 'contextWindow', 'price'];
const EMBEDDING_FIELDS = ['dimensions', 'minSimilarity'];

const SearchEntry = Type.Object(
  { embeddingModel: Type.Optional(Type.String({ minLength: 1 })) },
  { additionalProperties: false },
);

const RouterEntry = Type.Object(
  {
    id: Type.String({ pattern: '^\\S+$' }),
    order: Type.Array(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

const ConfigFile = Type.Object(
  {
    providers: Type.Record(Type.String(), ProviderEntry),
    models: Type.Array(ModelEntry),
    router: Type.Optional(RouterEntry),
    search: Type.Optional(SearchEntry),
  },
  { additionalProperties: false },
);

/** One thing wrong, at a JSON path (`$.models[0].id`) or a variable name. */
interface Problem {
  readonly at: string;
  readonly message: string;
}

/**
 * Reads and checks the catalog where the configuration locates it: the file `MNEMO_CONFIG` names,
 * else ./mnemo.config.json if it exists, else the conventional variables (`OPENAI_API_KEY`,
 * `ANTHROPIC_API_KEY`, `GEMINI_API_KEY` and their `*_BASE_URL`), each switching on its provider
 * with the built-in models; none: an empty catalog. Throws GatewayConfigError naming every problem.
 *
 * @example
 * loadCatalog({ file: undefined, variables: { OPENAI_API_KEY: 'sk-…' } }, { cwd: '/srv/mnemo' })
 *   .router; // { id: 'auto', order: ['openai/gpt-4.1', 'openai/gpt-4.1-mini', …] } when no file
 */
export function loadCatalog(
  location: CatalogLocation,
  options: { cwd?: string; readFile?: (path: string) => string | undefined } = {},
): Catalog {
  const cwd = options.cwd ?? process.cwd();
  const readFile = options.readFile ?? readFileIfExists;
  const env = location.variables;
  const named = nonEmpty(location.file);
  let loaded: Catalog;
  if (named !== undefined) {
    const file = resolve(cwd, named);
    const text = readConfigFile(readFile, file);
    if (text === undefined) {
      throw new GatewayConfigError(`MNEMO_CONFIG names ${file}, which does not exist`);
    }
    loaded = catalogFromFile(text, file, env);
  } else {
    const file = resolve(cwd, DEFAULT_FILE);
    const text = readConfigFile(readFile, file);
    loaded = text === undefined ? catalogFromEnv(env) : catalogFromFile(text, file, env);
  }
  return withSearchOverride(loaded, nonEmpty(location.searchEmbeddingModel));
}

/**
 * `MNEMO_SEARCH_EMBEDDING_MODEL` names search's embedding model over the file's `search`: it
 * must be an embedding model of the catalog, whichever way the catalog was configured.
 */
function withSearchOverride(loaded: Catalog, id: string | undefined): Catalog {
  if (id === undefined) return loaded;
  const model = loaded.embeddingModels.find((candidate) => candidate.id === id);
  if (!model) {
    fail('the environment', [
      {
        at: 'MNEMO_SEARCH_EMBEDDING_MODEL',
        message: notAnEmbeddingModel(
          id,
          loaded.models.some((candidate) => candidate.id === id),
          loaded.embeddingModels.map((candidate) => candidate.id),
        ),
      },
    ]);
  }
  return Object.freeze({ ...loaded, search: Object.freeze({ embeddingModel: model }) });
}

function notAnEmbeddingModel(id: string, isChat: boolean, embedding: readonly string[]): string {
  if (isChat) return `${JSON.stringify(id)} is a chat model, not an embedding model`;
  return `unknown embedding model ${JSON.stringify(id)} (configured: ${embedding.join(', ') || 'none'})`;
}

function readFileIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function readConfigFile(
  readFile: (path: string) => string | undefined,
  file: string,
): string | undefined {
  try {
    return readFile(file);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new GatewayConfigError(`${file}: cannot be read: ${reason}`);
  }
}

function catalogFromFile(
  text: string,
  file: string,
  env: Record<string, string | undefined>,
): Catalog {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new GatewayConfigError(`${file}: $: not valid JSON: ${(error as Error).message}`);
  }
  // Every problem at once: the form's, then the meaning's of whatever has the form to check.
  const form = schemaProblems(json);
  const problems = [...form, ...meaningProblems(json, new Set(form.map((problem) => problem.at)))];
  if (problems.length > 0 || !Value.Check(ConfigFile, json)) fail(file, problems);

  const providers = new Map<string, ProviderConfig>();
  for (const [name, entry] of Object.entries(json.providers)) {
    providers.set(name, provider(name, entry.kind, entry.baseUrl, entry.apiKeyEnv, env));
  }
  const models: ModelConfig[] = [];
  const embeddingModels: EmbeddingModelConfig[] = [];
  for (const entry of json.models) {
    if (entry.type === 'embedding') {
      embeddingModels.push(
        embeddingModel(entry.id, entry.provider, entry.upstream, {
          dimensions: entry.dimensions,
          minSimilarity: entry.minSimilarity,
        }),
      );
      continue;
    }
    models.push(
      Object.freeze({
        id: entry.id,
        provider: entry.provider,
        upstream: entry.upstream,
        vision: entry.vision ?? false,
        tools: entry.tools ?? false,
        jsonOutput: entry.jsonOutput ?? false,
        reasoning: entry.reasoning ?? false,
        // Checked present for every chat model (meaningProblems).
        contextWindow: entry.contextWindow ?? 0,
        price:
          entry.price && Object.freeze({ input: entry.price.input, output: entry.price.output }),
      }),
    );
  }
  const router = json.router ?? {
    id: DEFAULT_ROUTER_ID,
    order: models.map((model) => model.id),
  };
  const searchModel = embeddingModels.find((model) => model.id === json.search?.embeddingModel);
  return catalog(providers, models, router.id, router.order, embeddingModels, searchModel);
}

/** An embedding model of the catalog, with its defaults. */
export function embeddingModel(
  id: string,
  provider: string,
  upstream: string,
  options: { dimensions?: number | undefined; minSimilarity?: number | undefined } = {},
): EmbeddingModelConfig {
  return Object.freeze({
    id,
    provider,
    upstream,
    dimensions: options.dimensions,
    minSimilarity: options.minSimilarity ?? 0,
  });
}

function catalogFromEnv(env: Record<string, string | undefined>): Catalog {
  const providers = new Map<string, ProviderConfig>();
  const models: ModelConfig[] = [];
  const embeddingModels: EmbeddingModelConfig[] = [];
  const problems: Problem[] = [];
  for (const builtin of BUILTIN_PROVIDERS) {
    if (nonEmpty(env[builtin.apiKeyEnv]) === undefined) continue;
    const baseUrl = nonEmpty(env[builtin.baseUrlEnv]) ?? builtin.defaultBaseUrl;
    const wrong = baseUrlProblem(builtin.kind, baseUrl);
    if (wrong) problems.push({ at: builtin.baseUrlEnv, message: wrong });
    providers.set(
      builtin.name,
      provider(builtin.name, builtin.kind, baseUrl, builtin.apiKeyEnv, env),
    );
    models.push(...builtin.models);
    embeddingModels.push(...builtin.embeddingModels);
  }
  if (problems.length > 0) fail('the environment', problems);
  // Search stays lexical unless MNEMO_SEARCH_EMBEDDING_MODEL names one of the models.
  return catalog(
    providers,
    models,
    DEFAULT_ROUTER_ID,
    models.map((model) => model.id),
    embeddingModels,
    undefined,
  );
}

function provider(
  name: string,
  kind: ProviderKind,
  baseUrl: string,
  apiKeyEnv: string,
  env: Record<string, string | undefined>,
): ProviderConfig {
  return Object.freeze({
    name,
    kind,
    // Providers append their paths (`/chat/completions`) to the root.
    baseUrl: baseUrl.replace(/\/+$/, ''),
    apiKeyEnv,
    // A provider without its key stays configured: its calls fail upstream, visibly.
    apiKey: nonEmpty(env[apiKeyEnv]),
  });
}

function catalog(
  providers: Map<string, ProviderConfig>,
  models: readonly ModelConfig[],
  routerId: string,
  order: readonly string[],
  embeddingModels: readonly EmbeddingModelConfig[],
  searchModel: EmbeddingModelConfig | undefined,
): Catalog {
  return Object.freeze({
    providers,
    models: Object.freeze([...models]),
    router: Object.freeze({ id: routerId, order: Object.freeze([...order]) }),
    embeddingModels: Object.freeze([...embeddingModels]),
    search: Object.freeze({ embeddingModel: searchModel }),
  });
}

// A provider's name is the part of a model id before the slash, so it cannot hold one.
const PROVIDER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * What the file means, checked on whatever has the form to check: a field with a form problem of
 * its own (a path in `broken`), or of the wrong type, is left out of the checks that need it,
 * and only those. A model whose `provider` is not a string is not also "of an unknown provider".
 */
function meaningProblems(json: unknown, broken: ReadonlySet<string>): Problem[] {
  if (!isObject(json)) return [];
  const usable = (value: unknown, at: string): value is string =>
    typeof value === 'string' && !broken.has(at);
  const providers = isObject(json.providers) ? json.providers : undefined;
  const models = Array.isArray(json.models) ? json.models : undefined;
  return [
    ...(providers ? providerProblems(providers, usable) : []),
    ...(models ? modelProblems(models, providers, usable) : []),
    ...(isObject(json.router) ? routerProblems(json.router, models, usable) : []),
    ...(isObject(json.search) ? searchProblems(json.search, models, usable) : []),
  ];
}

const isEmbeddingEntry = (model: unknown) => isObject(model) && model.type === 'embedding';

type Usable = (value: unknown, at: string) => value is string;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const KINDS: readonly string[] = PROVIDER_KINDS;
const EMBEDDING_KIND_NAMES: readonly string[] = EMBEDDING_KINDS;

function providerProblems(providers: Record<string, unknown>, usable: Usable): Problem[] {
  const problems: Problem[] = [];
  for (const [name, entry] of Object.entries(providers)) {
    const at = jsonPath(['providers', name]);
    if (!PROVIDER_NAME.test(name)) {
      problems.push({ at, message: 'a provider name is letters, digits, ".", "_" or "-"' });
    }
    if (!isObject(entry)) continue;
    const { kind, baseUrl } = entry;
    if (usable(kind, `${at}.kind`) && KINDS.includes(kind) && usable(baseUrl, `${at}.baseUrl`)) {
      const wrong = baseUrlProblem(kind as ProviderKind, baseUrl);
      if (wrong) problems.push({ at: `${at}.baseUrl`, message: wrong });
    }
  }
  return problems;
}

/**
 * docs/design.md §4: "`baseUrl` is the provider's API root as its own SDKs take it
 * (OpenAI-compatible: up to and including `/v1`; Anthropic: without `/v1`; Gemini: without
 * `/v1beta`)". OpenAI-compatible servers root their APIs in many places, so only the other two
 * are checked.
 */
function baseUrlProblem(kind: ProviderKind, baseUrl: string): string | undefined {
  const url = URL.parse(baseUrl);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    return `must be an http:// or https:// URL, not ${JSON.stringify(baseUrl)}`;
  }
  if (url.search || url.hash || baseUrl.includes('?') || baseUrl.includes('#')) {
    return 'must not carry a query or fragment';
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (kind === 'anthropic' && /\/v1$/.test(path)) {
    return 'an anthropic baseUrl ends before /v1 (e.g. https://api.anthropic.com)';
  }
  if (kind === 'gemini' && /\/v1(beta)?$/.test(path)) {
    return 'a gemini baseUrl ends before /v1beta (e.g. https://generativelanguage.googleapis.com)';
  }
  return undefined;
}

function modelProblems(
  models: readonly unknown[],
  providers: Record<string, unknown> | undefined,
  usable: Usable,
): Problem[] {
  const problems: Problem[] = [];
  const firstIndex = new Map<string, number>();
  models.forEach((model, index) => {
    if (!isObject(model)) return;
    const at = jsonPath(['models', index]);
    const provider = usable(model.provider, `${at}.provider`) ? model.provider : undefined;
    if (provider !== undefined && providers && !Object.hasOwn(providers, provider)) {
      problems.push({
        at: `${at}.provider`,
        message: `unknown provider ${JSON.stringify(provider)} (configured: ${Object.keys(providers).join(', ') || 'none'})`,
      });
    }
    problems.push(...typeProblems(model, at, provider && providers?.[provider]));
    const id = model.id;
    if (!usable(id, `${at}.id`)) return;
    const slash = id.indexOf('/');
    if (slash <= 0 || slash === id.length - 1 || /\s/.test(id)) {
      problems.push({
        at: `${at}.id`,
        message: `${JSON.stringify(id)} is not of the form <provider>/<name>`,
      });
    } else if (provider !== undefined && id.slice(0, slash) !== provider) {
      problems.push({
        at: `${at}.id`,
        message: `${JSON.stringify(id)} must start with its provider: ${provider}/`,
      });
    }
    const first = firstIndex.get(id);
    if (first === undefined) firstIndex.set(id, index);
    else {
      problems.push({
        at: `${at}.id`,
        message: `duplicate id ${JSON.stringify(id)} (first at ${jsonPath(['models', first])})`,
      });
    }
  });
  return problems;
}

/** The fields a model's type takes, and the provider kinds that serve it. */
function typeProblems(
  model: Record<string, unknown>,
  at: string,
  providerEntry: unknown,
): Problem[] {
  const problems: Problem[] = [];
  const present = (field: string) => Object.hasOwn(model, field);
  if (isEmbeddingEntry(model)) {
    for (const field of CHAT_FIELDS.filter(present)) {
      problems.push({ at: `${at}.${field}`, message: 'is not a field of an embedding model' });
    }
    const kind = isObject(providerEntry) ? providerEntry.kind : undefined;
    if (typeof kind === 'string' && KINDS.includes(kind) && !EMBEDDING_KIND_NAMES.includes(kind)) {
      problems.push({
        at: `${at}.provider`,
        message: `a provider of kind ${kind} has no embeddings API (${EMBEDDING_KINDS.join(' and ')} do)`,
      });
    }
    return problems;
  }
  if (!present('contextWindow'))
    problems.push({ at: `${at}.contextWindow`, message: 'is required' });
  for (const field of EMBEDDING_FIELDS.filter(present)) {
    problems.push({
      at: `${at}.${field}`,
      message: 'is a field of embedding models only ("type": "embedding")',
    });
  }
  return problems;
}

function searchProblems(
  search: Record<string, unknown>,
  models: readonly unknown[] | undefined,
  usable: Usable,
): Problem[] {
  const id = search.embeddingModel;
  if (!models || !usable(id, '$.search.embeddingModel')) return [];
  const named = models.find((model) => isObject(model) && model.id === id);
  if (isEmbeddingEntry(named)) return [];
  const embedding = models.flatMap((model) =>
    isEmbeddingEntry(model) && typeof (model as { id?: unknown }).id === 'string'
      ? [(model as { id: string }).id]
      : [],
  );
  return [
    {
      at: '$.search.embeddingModel',
      message: notAnEmbeddingModel(id, named !== undefined, embedding),
    },
  ];
}

function routerProblems(
  router: Record<string, unknown>,
  models: readonly unknown[] | undefined,
  usable: Usable,
): Problem[] {
  const problems: Problem[] = [];
  // Without a list of models there is nothing to check the router against.
  if (!models) return problems;
  const ids = new Set(
    models.flatMap((model) => (isObject(model) && typeof model.id === 'string' ? [model.id] : [])),
  );
  const embedding = new Set(
    models.flatMap((model) =>
      isEmbeddingEntry(model) && typeof (model as { id?: unknown }).id === 'string'
        ? [(model as { id: string }).id]
        : [],
    ),
  );
  if (usable(router.id, '$.router.id') && ids.has(router.id)) {
    problems.push({
      at: '$.router.id',
      message: `${JSON.stringify(router.id)} is also a model id`,
    });
  }
  if (!Array.isArray(router.order)) return problems;
  const seen = new Set<string>();
  router.order.forEach((id: unknown, index) => {
    const at = jsonPath(['router', 'order', index]);
    if (!usable(id, at)) return;
    if (!ids.has(id)) problems.push({ at, message: `unknown model ${JSON.stringify(id)}` });
    else if (embedding.has(id)) {
      problems.push({
        at,
        message: `${JSON.stringify(id)} is an embedding model: the router routes chat models only`,
      });
    } else if (seen.has(id))
      problems.push({ at, message: `${JSON.stringify(id)} is listed twice` });
    seen.add(id);
  });
  return problems;
}

function schemaProblems(json: unknown): Problem[] {
  const problems: Problem[] = [];
  for (const error of Value.Errors(ConfigFile, json)) {
    const segments = error.instancePath
      .split('/')
      .slice(1)
      .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
    const params = error.params as Record<string, unknown>;
    switch (error.keyword) {
      // TypeBox reports an unknown field twice: as `additionalProperties` and as `boolean`.
      case 'boolean':
        break;
      case 'required':
        for (const name of (params.requiredProperties as string[] | undefined) ?? []) {
          problems.push({ at: jsonPath([...segments, name]), message: 'is required' });
        }
        break;
      case 'additionalProperties':
        for (const name of (params.additionalProperties as string[] | undefined) ?? []) {
          problems.push({ at: jsonPath([...segments, name]), message: 'is not a known field' });
        }
        break;
      case 'enum':
        problems.push({
          at: jsonPath(segments),
          message: `must be one of ${((params.allowedValues as unknown[] | undefined) ?? []).join(', ')}`,
        });
        break;
      default:
        problems.push({ at: jsonPath(segments), message: error.message });
    }
  }
  return problems;
}

/** `['models', 0, 'price']` → `$.models[0].price`; odd keys are quoted: `$.providers["a b"]`. */
function jsonPath(segments: readonly (string | number)[]): string {
  let path = '$';
  for (const segment of segments) {
    if (typeof segment === 'number' || /^(0|[1-9][0-9]*)$/.test(segment)) path += `[${segment}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(segment)) path += `.${segment}`;
    else path += `[${JSON.stringify(segment)}]`;
  }
  return path;
}

function fail(source: string, problems: readonly Problem[]): never {
  const list = problems.map((p) => `${p.at}: ${p.message}`).join('; ');
  throw new GatewayConfigError(`invalid gateway configuration in ${source}: ${list}`);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
