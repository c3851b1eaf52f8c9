import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { BUILTIN_PROVIDERS } from './builtin-models.ts';
import { GatewayConfigError, loadCatalog } from './gateway-config.ts';

/** The example of docs/design.md §4, verbatim. */
const DOCUMENTED_EXAMPLE = `{
  "providers": {
    "openai":    { "kind": "openai",    "baseUrl": "https://api.openai.com/v1", "apiKeyEnv": "OPENAI_API_KEY" },
    "anthropic": { "kind": "anthropic", "baseUrl": "https://api.anthropic.com", "apiKeyEnv": "ANTHROPIC_API_KEY" },
    "google":    { "kind": "gemini",    "baseUrl": "https://generativelanguage.googleapis.com", "apiKeyEnv": "GEMINI_API_KEY" }
  },
  "models": [
    { "id": "openai/gpt-4.1", "provider": "openai", "upstream": "gpt-4.1",
      "vision": true, "tools": true, "contextWindow": 1047576, "price": { "input": 2.0, "output": 8.0 } }
  ],
  "router": { "id": "auto", "order": ["openai/gpt-4.1"] }
}`;

const FILE = '/cfg/mnemo.config.json';

/** A readFile over an in-memory file set (absolute paths). */
function files(entries: Record<string, string>): (path: string) => string | undefined {
  return (path) => entries[path];
}

/** Where the configuration locates the catalog, given this environment (config.ts). */
function located(env: Record<string, string | undefined>) {
  return { file: env.MNEMO_CONFIG || undefined, variables: env };
}

function fromFile(config: unknown, env: Record<string, string | undefined> = {}) {
  return loadCatalog(located(env), {
    cwd: '/cfg',
    readFile: files({ [FILE]: typeof config === 'string' ? config : JSON.stringify(config) }),
  });
}

function errorOf(load: () => unknown): string {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a GatewayConfigError');
}

/** A valid file to break one piece of at a time. */
function validConfig() {
  return {
    providers: {
      openai: { kind: 'openai', baseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY' },
      local: { kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', apiKeyEnv: 'OLLAMA_KEY' },
    },
    models: [
      {
        id: 'openai/gpt-4.1',
        provider: 'openai',
        upstream: 'gpt-4.1',
        vision: true,
        tools: true,
        jsonOutput: true,
        contextWindow: 1047576,
        price: { input: 2, output: 8 },
      },
      {
        id: 'local/llama3.1',
        provider: 'local',
        upstream: 'llama3.1:8b',
        contextWindow: 131072,
        price: { input: 0, output: 0 },
      },
    ],
    router: { id: 'auto', order: ['local/llama3.1', 'openai/gpt-4.1'] },
  };
}

describe('the file of docs/design.md §4', () => {
  test('parses to the expected catalog', () => {
    const catalog = fromFile(DOCUMENTED_EXAMPLE, {
      OPENAI_API_KEY: 'sk-openai',
      ANTHROPIC_API_KEY: 'sk-ant',
    });
    expect([...catalog.providers.values()]).toEqual([
      {
        name: 'openai',
        kind: 'openai',
        baseUrl: 'https://api.openai.com/v1',
        apiKeyEnv: 'OPENAI_API_KEY',
        apiKey: 'sk-openai',
      },
      {
        name: 'anthropic',
        kind: 'anthropic',
        baseUrl: 'https://api.anthropic.com',
        apiKeyEnv: 'ANTHROPIC_API_KEY',
        apiKey: 'sk-ant',
      },
      {
        name: 'google',
        kind: 'gemini',
        baseUrl: 'https://generativelanguage.googleapis.com',
        apiKeyEnv: 'GEMINI_API_KEY',
        apiKey: undefined,
      },
    ]);
    expect(catalog.models).toEqual([
      {
        id: 'openai/gpt-4.1',
        provider: 'openai',
        upstream: 'gpt-4.1',
        vision: true,
        tools: true,
        jsonOutput: false,
        reasoning: false,
        contextWindow: 1047576,
        price: { input: 2, output: 8 },
      },
    ]);
    expect(catalog.router).toEqual({ id: 'auto', order: ['openai/gpt-4.1'] });
  });

  test('capabilities default to false and the router to auto over every model in file order', () => {
    const config = validConfig();
    const { router: _router, ...withoutRouter } = config;
    const catalog = fromFile(withoutRouter);
    expect(catalog.models[1]).toMatchObject({
      vision: false,
      tools: false,
      jsonOutput: false,
      reasoning: false,
    });
    expect(catalog.router).toEqual({ id: 'auto', order: ['openai/gpt-4.1', 'local/llama3.1'] });
  });

  test('a reasoning model says so; reasoning must be a boolean', () => {
    const config = validConfig();
    Object.assign(config.models[0] as object, { reasoning: true });
    expect(fromFile(config).models.map((model) => [model.id, model.reasoning])).toEqual([
      ['openai/gpt-4.1', true],
      ['local/llama3.1', false],
    ]);
    Object.assign(config.models[0] as object, { reasoning: 'yes' });
    expect(() => fromFile(config)).toThrow(/reasoning/);
  });

  test('keeps the router the file gives, and ids whose name holds a slash', () => {
    const config = validConfig();
    config.models.push({
      id: 'local/meta-llama/llama-3.3-70b',
      provider: 'local',
      upstream: 'meta-llama/llama-3.3-70b',
      contextWindow: 8192,
      price: { input: 0.1, output: 0.2 },
    });
    config.router = { id: 'best', order: ['local/meta-llama/llama-3.3-70b'] };
    expect(fromFile(config).router).toEqual({
      id: 'best',
      order: ['local/meta-llama/llama-3.3-70b'],
    });
  });

  test('a model without a price (a self-hosted server) is taken, its price unknown', () => {
    const config: ReturnType<typeof validConfig> = validConfig();
    const { price: _price, ...unpriced } = config.models[1] as (typeof config.models)[number];
    config.models[1] = unpriced as (typeof config.models)[number];
    const catalog = fromFile(config);
    expect(catalog.models[1]).toEqual({
      id: 'local/llama3.1',
      provider: 'local',
      upstream: 'llama3.1:8b',
      vision: false,
      tools: false,
      jsonOutput: false,
      reasoning: false,
      contextWindow: 131072,
      price: undefined,
    });
    expect(catalog.models[0]?.price).toEqual({ input: 2, output: 8 });
  });

  test('a missing key leaves the provider configured, and a trailing slash is dropped', () => {
    const config = validConfig();
    config.providers.local.baseUrl = 'http://127.0.0.1:11434/v1/';
    const catalog = fromFile(config, { OLLAMA_KEY: '' });
    expect(catalog.providers.get('local')).toEqual({
      name: 'local',
      kind: 'openai',
      baseUrl: 'http://127.0.0.1:11434/v1',
      apiKeyEnv: 'OLLAMA_KEY',
      apiKey: undefined,
    });
  });

  test('the catalog is frozen', () => {
    const catalog = fromFile(validConfig());
    expect(Object.isFrozen(catalog.models)).toBe(true);
    expect(Object.isFrozen(catalog.models[0])).toBe(true);
    expect(Object.isFrozen(catalog.router.order)).toBe(true);
  });
});

/** An embedding model entry for the valid file's openai provider. */
const EMBEDDING = {
  id: 'openai/text-embedding-3-small',
  provider: 'openai',
  upstream: 'text-embedding-3-small',
  type: 'embedding',
};

describe('embedding models', () => {
  test('are kept apart from the chat models: not routed, not in the default router order', () => {
    const config = validConfig();
    const { router: _router, ...withoutRouter } = config;
    const catalog = fromFile({
      ...withoutRouter,
      models: [
        config.models[0],
        { ...EMBEDDING, dimensions: 512, minSimilarity: 0.25 },
        config.models[1],
        { id: 'local/nomic', provider: 'local', upstream: 'nomic-embed-text', type: 'embedding' },
      ],
    });
    expect(catalog.models.map((model) => model.id)).toEqual(['openai/gpt-4.1', 'local/llama3.1']);
    expect(catalog.router.order).toEqual(['openai/gpt-4.1', 'local/llama3.1']);
    expect(catalog.embeddingModels).toEqual([
      {
        id: 'openai/text-embedding-3-small',
        provider: 'openai',
        upstream: 'text-embedding-3-small',
        dimensions: 512,
        minSimilarity: 0.25,
      },
      {
        id: 'local/nomic',
        provider: 'local',
        upstream: 'nomic-embed-text',
        dimensions: undefined,
        minSimilarity: 0,
      },
    ]);
    // Named by nothing: search stays lexical.
    expect(catalog.search).toEqual({ embeddingModel: undefined });
    expect(Object.isFrozen(catalog.embeddingModels[0])).toBe(true);
  });

  test('"type": "chat" is the default, said or not', () => {
    const config = validConfig();
    Object.assign(config.models[0] as object, { type: 'chat' });
    expect(fromFile(config).models.map((model) => model.id)).toEqual([
      'openai/gpt-4.1',
      'local/llama3.1',
    ]);
  });

  test('search.embeddingModel names search’s model; MNEMO_SEARCH_EMBEDDING_MODEL wins over it', () => {
    const config = {
      ...validConfig(),
      models: [
        ...validConfig().models,
        EMBEDDING,
        { ...EMBEDDING, id: 'local/nomic', provider: 'local' },
      ],
      search: { embeddingModel: 'openai/text-embedding-3-small' },
    };
    expect(fromFile(config).search.embeddingModel?.id).toBe('openai/text-embedding-3-small');
    const overridden = loadCatalog(
      { file: undefined, variables: {}, searchEmbeddingModel: 'local/nomic' },
      { cwd: '/cfg', readFile: files({ [FILE]: JSON.stringify(config) }) },
    );
    expect(overridden.search.embeddingModel?.id).toBe('local/nomic');
  });

  test.each([
    [
      'a chat model',
      'openai/gpt-4.1',
      'invalid gateway configuration in the environment: MNEMO_SEARCH_EMBEDDING_MODEL: "openai/gpt-4.1" is a chat model, not an embedding model',
    ],
    [
      'no model at all',
      'openai/text-embedding-3-large',
      'invalid gateway configuration in the environment: MNEMO_SEARCH_EMBEDDING_MODEL: unknown embedding model "openai/text-embedding-3-large" (configured: openai/text-embedding-3-small)',
    ],
  ])('MNEMO_SEARCH_EMBEDDING_MODEL naming %s stops the start', (_name, id, message) => {
    const config = { ...validConfig(), models: [...validConfig().models, EMBEDDING] };
    expect(
      errorOf(() =>
        loadCatalog(
          { file: undefined, variables: {}, searchEmbeddingModel: id },
          { cwd: '/cfg', readFile: files({ [FILE]: JSON.stringify(config) }) },
        ),
      ),
    ).toBe(message);
  });

  test('the built-in catalogs offer OpenAI’s and Gemini’s, for MNEMO_SEARCH_EMBEDDING_MODEL', () => {
    const load = (env: Record<string, string | undefined>, model?: string) =>
      loadCatalog(
        { file: undefined, variables: env, searchEmbeddingModel: model },
        { cwd: '/nowhere', readFile: () => undefined },
      );
    const all = { OPENAI_API_KEY: 'o', ANTHROPIC_API_KEY: 'a', GEMINI_API_KEY: 'g' };
    expect(load(all).embeddingModels).toEqual([
      {
        id: 'openai/text-embedding-3-small',
        provider: 'openai',
        upstream: 'text-embedding-3-small',
        dimensions: 512,
        minSimilarity: 0,
      },
      {
        id: 'google/gemini-embedding-001',
        provider: 'google',
        upstream: 'gemini-embedding-001',
        dimensions: 768,
        minSimilarity: 0,
      },
    ]);
    expect(load(all).search.embeddingModel).toBeUndefined();
    expect(load(all).router.order).not.toContain('openai/text-embedding-3-small');
    expect(load(all, 'google/gemini-embedding-001').search.embeddingModel?.upstream).toBe(
      'gemini-embedding-001',
    );
    // Only a switched-on provider's.
    expect(errorOf(() => load({ ANTHROPIC_API_KEY: 'a' }, 'openai/text-embedding-3-small'))).toBe(
      'invalid gateway configuration in the environment: MNEMO_SEARCH_EMBEDDING_MODEL: unknown embedding model "openai/text-embedding-3-small" (configured: none)',
    );
  });
});

describe('validation: each error names the file and the JSON path', () => {
  type Config = ReturnType<typeof validConfig>;
  // biome-ignore lint/suspicious/noExplicitAny: the table breaks the file on purpose
  type Breakable = any;
  const cases: [string, (c: Breakable) => void, string][] = [
    [
      'unknown provider in a model',
      (c) => {
        c.models[1].provider = 'nobody';
        c.models[1].id = 'nobody/llama3.1';
      },
      '$.models[1].provider: unknown provider "nobody" (configured: openai, local)',
    ],
    [
      'id without a slash',
      (c) => {
        c.models[0].id = 'gpt-4.1';
      },
      '$.models[0].id: "gpt-4.1" is not of the form <provider>/<name>',
    ],
    [
      'id with an empty name',
      (c) => {
        c.models[0].id = 'openai/';
      },
      '$.models[0].id: "openai/" is not of the form <provider>/<name>',
    ],
    [
      "id whose prefix is not the model's provider",
      (c) => {
        c.models[0].id = 'local/gpt-4.1';
      },
      '$.models[0].id: "local/gpt-4.1" must start with its provider: openai/',
    ],
    [
      'duplicate ids',
      (c) => {
        c.models[1] = { ...c.models[0] };
      },
      '$.models[1].id: duplicate id "openai/gpt-4.1" (first at $.models[0])',
    ],
    [
      'router order naming an unknown model',
      (c) => {
        c.router.order.push('openai/gpt-5');
      },
      '$.router.order[2]: unknown model "openai/gpt-5"',
    ],
    [
      'router order naming a model twice',
      (c) => {
        c.router.order.push('openai/gpt-4.1');
      },
      '$.router.order[2]: "openai/gpt-4.1" is listed twice',
    ],
    [
      'router id colliding with a model id',
      (c) => {
        c.router.id = 'openai/gpt-4.1';
      },
      '$.router.id: "openai/gpt-4.1" is also a model id',
    ],
    [
      'baseUrl that is not a URL',
      (c) => {
        c.providers.openai.baseUrl = 'api.openai.com/v1';
      },
      '$.providers.openai.baseUrl: must be an http:// or https:// URL, not "api.openai.com/v1"',
    ],
    [
      'baseUrl of another scheme',
      (c) => {
        c.providers.openai.baseUrl = 'ftp://api.openai.com/v1';
      },
      '$.providers.openai.baseUrl: must be an http:// or https:// URL',
    ],
    [
      'baseUrl with a query',
      (c) => {
        c.providers.openai.baseUrl = 'https://api.openai.com/v1?x=1';
      },
      '$.providers.openai.baseUrl: must not carry a query or fragment',
    ],
    [
      'anthropic baseUrl with /v1',
      (c) => {
        c.providers.local = {
          kind: 'anthropic',
          baseUrl: 'https://api.anthropic.com/v1',
          apiKeyEnv: 'K',
        };
      },
      '$.providers.local.baseUrl: an anthropic baseUrl ends before /v1',
    ],
    [
      'gemini baseUrl with /v1beta',
      (c) => {
        c.providers.local = {
          kind: 'gemini',
          baseUrl: 'https://generativelanguage.googleapis.com/v1beta/',
          apiKeyEnv: 'K',
        };
      },
      '$.providers.local.baseUrl: a gemini baseUrl ends before /v1beta',
    ],
    [
      'provider name with a slash',
      (c) => {
        c.providers['a/b'] = c.providers.local;
      },
      '$.providers["a/b"]: a provider name is letters, digits',
    ],
    [
      'negative input price',
      (c) => {
        c.models[0].price.input = -1;
      },
      '$.models[0].price.input: must be >= 0',
    ],
    [
      'negative output price',
      (c) => {
        c.models[1].price.output = -0.5;
      },
      '$.models[1].price.output: must be >= 0',
    ],
    [
      'context window not a positive integer',
      (c) => {
        c.models[0].contextWindow = 0;
      },
      '$.models[0].contextWindow: must be >= 1',
    ],
    [
      'unknown kind',
      (c) => {
        c.providers.local.kind = 'mistral';
      },
      '$.providers.local.kind: must be one of openai, anthropic, gemini',
    ],
    [
      'bad apiKeyEnv',
      (c) => {
        c.providers.local.apiKeyEnv = 'sk-literal-key';
      },
      '$.providers.local.apiKeyEnv: must match pattern',
    ],
    [
      'a price without its output',
      (c) => {
        delete c.models[0].price.output;
      },
      '$.models[0].price.output: is required',
    ],
    [
      'missing contextWindow',
      (c) => {
        delete c.models[1].contextWindow;
      },
      '$.models[1].contextWindow: is required',
    ],
    [
      'missing upstream',
      (c) => {
        delete c.models[0].upstream;
      },
      '$.models[0].upstream: is required',
    ],
    [
      'missing baseUrl',
      (c) => {
        delete c.providers.openai.baseUrl;
      },
      '$.providers.openai.baseUrl: is required',
    ],
    [
      'missing models',
      (c) => {
        delete c.models;
      },
      '$.models: is required',
    ],
    [
      'missing router order',
      (c) => {
        delete c.router.order;
      },
      '$.router.order: is required',
    ],
    [
      'a misspelt field',
      (c) => {
        c.models[0].vison = true;
      },
      '$.models[0].vison: is not a known field',
    ],
    [
      'a capability that is not a boolean',
      (c) => {
        c.models[0].tools = 'yes';
      },
      '$.models[0].tools: must be boolean',
    ],
    [
      'a type that is neither chat nor embedding',
      (c) => {
        c.models[0].type = 'rerank';
      },
      '$.models[0].type: must be one of chat, embedding',
    ],
    [
      'a chat field on an embedding model',
      (c) => {
        c.models[1].type = 'embedding';
      },
      '$.models[1].contextWindow: is not a field of an embedding model; $.models[1].price: is not a field of an embedding model',
    ],
    [
      'an embedding field on a chat model',
      (c) => {
        c.models[0].dimensions = 256;
      },
      '$.models[0].dimensions: is a field of embedding models only ("type": "embedding")',
    ],
    [
      'an embedding model of a provider without embeddings',
      (c) => {
        c.providers.claude = {
          kind: 'anthropic',
          baseUrl: 'https://api.anthropic.com',
          apiKeyEnv: 'K',
        };
        c.models.push({ id: 'claude/x', provider: 'claude', upstream: 'x', type: 'embedding' });
      },
      '$.models[2].provider: a provider of kind anthropic has no embeddings API (openai and gemini do)',
    ],
    [
      'dimensions not a positive integer',
      (c) => {
        c.models.push({ ...EMBEDDING, dimensions: 0 });
      },
      '$.models[2].dimensions: must be >= 1',
    ],
    [
      'a similarity floor beyond a cosine',
      (c) => {
        c.models.push({ ...EMBEDDING, minSimilarity: 1.5 });
      },
      '$.models[2].minSimilarity: must be <= 1',
    ],
    [
      'an embedding model in the router',
      (c) => {
        c.models.push(EMBEDDING);
        c.router.order.push(EMBEDDING.id);
      },
      '$.router.order[2]: "openai/text-embedding-3-small" is an embedding model: the router routes chat models only',
    ],
    [
      'search naming a chat model',
      (c) => {
        c.search = { embeddingModel: 'openai/gpt-4.1' };
      },
      '$.search.embeddingModel: "openai/gpt-4.1" is a chat model, not an embedding model',
    ],
    [
      'search naming no model of the file',
      (c) => {
        c.models.push(EMBEDDING);
        c.search = { embeddingModel: 'openai/text-embedding-3-large' };
      },
      '$.search.embeddingModel: unknown embedding model "openai/text-embedding-3-large" (configured: openai/text-embedding-3-small)',
    ],
    [
      'a misspelt search field',
      (c) => {
        c.search = { embedingModel: 'x' };
      },
      '$.search.embedingModel: is not a known field',
    ],
  ];

  test.each(cases)('%s', (_name, breakIt, expected) => {
    const config: Config = validConfig();
    breakIt(config);
    const message = errorOf(() => fromFile(config));
    expect(message).toContain(`invalid gateway configuration in ${FILE}: `);
    expect(message).toContain(expected);
  });

  test('reports every problem at once, of form and of meaning together', () => {
    const config: Breakable = validConfig();
    config.models[0].id = 'local/gpt-4.1';
    config.router.order.push('x/y');
    config.models[1].provider = 'nobody';
    config.models[0].price.input = -1;
    delete config.models[1].upstream;
    config.models.push({ ...config.models[1], id: 'nobody/llama3.1', upstream: 'llama' });
    config.models.push({ ...config.models[2] });
    expect(errorOf(() => fromFile(config))).toBe(
      `invalid gateway configuration in ${FILE}: ` +
        [
          '$.models[0].price.input: must be >= 0',
          '$.models[1].upstream: is required',
          '$.models[0].id: "local/gpt-4.1" must start with its provider: openai/',
          '$.models[1].provider: unknown provider "nobody" (configured: openai, local)',
          '$.models[1].id: "local/llama3.1" must start with its provider: nobody/',
          '$.models[2].provider: unknown provider "nobody" (configured: openai, local)',
          '$.models[3].provider: unknown provider "nobody" (configured: openai, local)',
          '$.models[3].id: duplicate id "nobody/llama3.1" (first at $.models[2])',
          // models[0] is local/gpt-4.1 now: the router's first entry names no model.
          '$.router.order[1]: unknown model "openai/gpt-4.1"',
          '$.router.order[2]: unknown model "x/y"',
        ].join('; '),
    );
  });

  test('a field with a form problem is left out of the meaning checks that need it, and only those', () => {
    const config: Breakable = validConfig();
    // Neither a known kind nor a string: the baseUrl rule depends on both.
    config.providers.openai.kind = 'mistral';
    config.providers.openai.baseUrl = 7;
    // The second provider's entry is broken elsewhere: its baseUrl is still checked.
    config.providers.local.extra = true;
    config.providers.local.baseUrl = 'localhost:11434';
    // No id to check; its provider still is.
    config.models[0].id = 42;
    config.models[0].provider = 'nobody';
    // An id of the wrong form (empty) is the form's to report, not also "not <provider>/<name>".
    config.models[1].id = '';
    config.router.id = ['auto'];
    config.router.order = ['openai/gpt-4.1', 3];
    expect(errorOf(() => fromFile(config))).toBe(
      `invalid gateway configuration in ${FILE}: ` +
        [
          '$.providers.openai.kind: must be one of openai, anthropic, gemini',
          '$.providers.openai.baseUrl: must be string',
          '$.providers.local.extra: is not a known field',
          '$.models[0].id: must be string',
          '$.models[1].id: must not have fewer than 1 characters',
          '$.router.id: must be string',
          '$.router.order[1]: must be string',
          '$.providers.local.baseUrl: must be an http:// or https:// URL, not "localhost:11434"',
          '$.models[0].provider: unknown provider "nobody" (configured: openai, local)',
          // The file as it stands has no model of this id (models[0]'s is not a string).
          '$.router.order[0]: unknown model "openai/gpt-4.1"',
        ].join('; '),
    );
  });

  test('without a list of models, or of providers, only the form is reported for them', () => {
    expect(
      errorOf(() =>
        fromFile({ providers: [], models: {}, router: { id: 'auto', order: ['a/b'] } }),
      ),
    ).toBe(
      `invalid gateway configuration in ${FILE}: $.providers: must be object; $.models: must be array`,
    );
  });

  test('a file that is not JSON, or not an object', () => {
    expect(errorOf(() => fromFile('{"providers": '))).toMatch(
      /^\/cfg\/mnemo\.config\.json: \$: not valid JSON: /,
    );
    expect(errorOf(() => fromFile('[]'))).toContain(`${FILE}: $: must be object`);
  });

  test('any single negative price is refused, any non-negative one kept (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        (input, output) => {
          const config: Breakable = validConfig();
          config.models[0].price = { input, output };
          const json = JSON.stringify(config);
          // JSON has no -0; the file holds what JSON.stringify wrote.
          const written = JSON.parse(json).models[0].price;
          if (written.input < 0 || written.output < 0) {
            expect(() => fromFile(json)).toThrow(GatewayConfigError);
          } else {
            expect(fromFile(json).models[0]?.price).toEqual(written);
          }
        },
      ),
    );
  });

  test('ids are accepted exactly when they are <own provider>/<non-empty name> (property)', () => {
    const part = fc.stringMatching(/^[a-z0-9./-]{0,8}$/);
    fc.assert(
      fc.property(part, (id) => {
        const config: Breakable = validConfig();
        config.models[0].id = id;
        config.router.order = [];
        const slash = id.indexOf('/');
        const valid = slash > 0 && slash < id.length - 1 && id.slice(0, slash) === 'openai';
        if (valid) expect(fromFile(config).models[0]?.id).toBe(id);
        else expect(() => fromFile(config)).toThrow(GatewayConfigError);
      }),
    );
  });
});

describe('which source is read', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mnemo-gateway-config-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const withModel = (id: string) => {
    const [provider = '', upstream = ''] = id.split('/');
    return JSON.stringify({
      providers: {
        [provider]: { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'K' },
      },
      models: [{ id, provider, upstream, contextWindow: 8, price: { input: 0, output: 0 } }],
    });
  };

  test('MNEMO_CONFIG wins over ./mnemo.config.json and the variables; relative to cwd', () => {
    mkdirSync(join(dir, 'etc'));
    writeFileSync(join(dir, 'etc', 'gateway.json'), withModel('named/m'));
    writeFileSync(join(dir, 'mnemo.config.json'), withModel('default/m'));
    const catalog = loadCatalog(
      located({ MNEMO_CONFIG: 'etc/gateway.json', OPENAI_API_KEY: 'sk' }),
      { cwd: dir },
    );
    expect(catalog.models.map((m) => m.id)).toEqual(['named/m']);
  });

  test('MNEMO_CONFIG may be absolute', () => {
    writeFileSync(join(dir, 'a.json'), withModel('abs/m'));
    const catalog = loadCatalog(located({ MNEMO_CONFIG: join(dir, 'a.json') }), { cwd: '/' });
    expect(catalog.models.map((m) => m.id)).toEqual(['abs/m']);
  });

  test('./mnemo.config.json wins over the variables', () => {
    writeFileSync(join(dir, 'mnemo.config.json'), withModel('default/m'));
    const catalog = loadCatalog(located({ OPENAI_API_KEY: 'sk' }), { cwd: dir });
    expect(catalog.models.map((m) => m.id)).toEqual(['default/m']);
    expect([...catalog.providers.keys()]).toEqual(['default']);
  });

  test('without a file, the variables', () => {
    const catalog = loadCatalog(located({ OPENAI_API_KEY: 'sk' }), { cwd: dir });
    expect([...catalog.providers.keys()]).toEqual(['openai']);
  });

  test('MNEMO_CONFIG naming a missing file is an error', () => {
    const message = errorOf(() =>
      loadCatalog(located({ MNEMO_CONFIG: 'nope.json' }), { cwd: dir }),
    );
    expect(message).toBe(`MNEMO_CONFIG names ${join(dir, 'nope.json')}, which does not exist`);
  });

  test('an empty MNEMO_CONFIG is unset', () => {
    const catalog = loadCatalog(located({ MNEMO_CONFIG: '' }), { cwd: dir });
    expect(catalog.models).toEqual([]);
  });

  test('MNEMO_CONFIG naming an unreadable file is an error', () => {
    // A directory cannot be read as a file, whoever runs the test (root reads any mode).
    mkdirSync(join(dir, 'conf.d'));
    const message = errorOf(() => loadCatalog(located({ MNEMO_CONFIG: 'conf.d' }), { cwd: dir }));
    expect(message).toMatch(new RegExp(`^${join(dir, 'conf.d')}: cannot be read: EISDIR`));
  });

  test('an unreadable ./mnemo.config.json is an error too', () => {
    const readFile = () => {
      throw new Error('EACCES: permission denied');
    };
    const message = errorOf(() => loadCatalog(located({}), { cwd: dir, readFile }));
    expect(message).toBe(
      `${join(dir, 'mnemo.config.json')}: cannot be read: EACCES: permission denied`,
    );
  });

  test('an invalid file in a temp dir names its path', () => {
    writeFileSync(join(dir, 'mnemo.config.json'), '{"providers": {}, "models": [], "x": 1}');
    const message = errorOf(() => loadCatalog(located({}), { cwd: dir }));
    expect(message).toBe(
      `invalid gateway configuration in ${join(dir, 'mnemo.config.json')}: $.x: is not a known field`,
    );
  });
});

describe('without a file: the conventional variables', () => {
  const load = (env: Record<string, string | undefined>) =>
    loadCatalog(located(env), { cwd: '/nowhere', readFile: () => undefined });
  const builtinIds = (name: string) =>
    BUILTIN_PROVIDERS.find((p) => p.name === name)?.models.map((m) => m.id) ?? [];

  test('no provider at all: an empty catalog', () => {
    const catalog = load({ OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' });
    expect(catalog.providers.size).toBe(0);
    expect(catalog.models).toEqual([]);
    expect(catalog.router).toEqual({ id: 'auto', order: [] });
  });

  test('each key switches on its provider with the default root and the key', () => {
    const catalog = load({
      OPENAI_API_KEY: 'sk-o',
      ANTHROPIC_API_KEY: 'sk-a',
      GEMINI_API_KEY: 'g-k',
    });
    expect([...catalog.providers.values()]).toEqual([
      {
        name: 'openai',
        kind: 'openai',
        baseUrl: 'https://api.openai.com/v1',
        apiKeyEnv: 'OPENAI_API_KEY',
        apiKey: 'sk-o',
      },
      {
        name: 'anthropic',
        kind: 'anthropic',
        baseUrl: 'https://api.anthropic.com',
        apiKeyEnv: 'ANTHROPIC_API_KEY',
        apiKey: 'sk-a',
      },
      {
        name: 'google',
        kind: 'gemini',
        baseUrl: 'https://generativelanguage.googleapis.com',
        apiKeyEnv: 'GEMINI_API_KEY',
        apiKey: 'g-k',
      },
    ]);
    expect(catalog.router).toEqual({
      id: 'auto',
      order: [...builtinIds('openai'), ...builtinIds('anthropic'), ...builtinIds('google')],
    });
    expect(catalog.models.map((m) => m.id)).toEqual(catalog.router.order);
  });

  test('base URL overrides', () => {
    const catalog = load({
      OPENAI_API_KEY: 'sk-o',
      OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1/',
      ANTHROPIC_API_KEY: 'sk-a',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:8001',
      GEMINI_API_KEY: 'g-k',
      GEMINI_BASE_URL: 'http://127.0.0.1:8002',
    });
    expect([...catalog.providers.values()].map((p) => p.baseUrl)).toEqual([
      'http://127.0.0.1:8000/v1',
      'http://127.0.0.1:8001',
      'http://127.0.0.1:8002',
    ]);
  });

  test('the router follows the switched-on providers in the order openai, anthropic, google', () => {
    const catalog = load({ GEMINI_API_KEY: 'g', ANTHROPIC_API_KEY: 'a' });
    expect([...catalog.providers.keys()]).toEqual(['anthropic', 'google']);
    expect(catalog.router.order).toEqual([...builtinIds('anthropic'), ...builtinIds('google')]);
  });

  test('an empty key does not switch a provider on', () => {
    expect(load({ OPENAI_API_KEY: '' }).providers.size).toBe(0);
  });

  test('a bad base URL names its variable', () => {
    expect(errorOf(() => load({ OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'localhost:8000' }))).toBe(
      'invalid gateway configuration in the environment: OPENAI_BASE_URL: must be an http:// or https:// URL, not "localhost:8000"',
    );
    expect(
      errorOf(() =>
        load({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'https://api.anthropic.com/v1' }),
      ),
    ).toContain('ANTHROPIC_BASE_URL: an anthropic baseUrl ends before /v1');
  });

  test('the built-in catalog is itself a valid file', () => {
    const file = {
      providers: Object.fromEntries(
        BUILTIN_PROVIDERS.map((p) => [
          p.name,
          { kind: p.kind, baseUrl: p.defaultBaseUrl, apiKeyEnv: p.apiKeyEnv },
        ]),
      ),
      models: [
        ...BUILTIN_PROVIDERS.flatMap((p) => p.models),
        ...BUILTIN_PROVIDERS.flatMap((p) =>
          p.embeddingModels.map((m) => ({
            id: m.id,
            provider: m.provider,
            upstream: m.upstream,
            type: 'embedding',
            dimensions: m.dimensions,
            minSimilarity: m.minSimilarity,
          })),
        ),
      ],
    };
    const env = { OPENAI_API_KEY: 'o', ANTHROPIC_API_KEY: 'a', GEMINI_API_KEY: 'g' };
    const fromBuiltin = fromFile(file, env);
    const fromEnv = load(env);
    expect(fromBuiltin.models).toEqual(fromEnv.models);
    expect(fromBuiltin.embeddingModels).toEqual(fromEnv.embeddingModels);
    expect(fromBuiltin.router).toEqual(fromEnv.router);
    expect([...fromBuiltin.providers]).toEqual([...fromEnv.providers]);
  });
});
