import { expectCall, listMemories, type MnemoServer, storeHeaders, storeOf } from './api-client.ts';
import type { FloorKind } from './floor.ts';
import type { LoadRequest, Measurement } from './load.ts';
import { memoryText } from './memory-text.ts';
import type { SeedOptions } from './server.ts';

/**
 * The bench servers, each its own process and store, started when a scenario first needs one:
 * the API scenarios share `app`; each pull gets a store holding nothing but its own memories,
 * so the 100k-vs-1k comparison also compares database sizes (a query that scanned the whole
 * table would show). The search part (search/run-search.ts) searches a store of 100,000 varied
 * memories, and adds to two empty stores, one of them without its search index.
 */
export const SERVER_STORES = {
  app: { list: 100, edit: 100, post: 0 },
  'pull-1k': { pull: 1_000 },
  'pull-100k': { pull: 100_000 },
  'search-100k': { search: 100_000 },
  'add-indexed': { post: 0 },
  'add-unindexed': { post: 0 },
} as const satisfies Record<string, Record<string, number>>;
export type ServerKind = keyof typeof SERVER_STORES;

/** How a server's store is seeded, where not as by default. */
export const SERVER_SEEDS: Partial<Record<ServerKind, SeedOptions>> = {
  'search-100k': { texts: 'search-corpus' },
  'add-unindexed': { searchIndex: false },
};

/** What a scenario may start. */
export interface Servers {
  mnemo(kind: ServerKind): Promise<MnemoServer>;
  /** Starts the floor processes of `kind` answering `body`; they are stopped after the scenario. */
  floor(kind: FloorKind, body: Buffer, contentType: string): Promise<{ readonly origin: string }>;
}

/** A prepared scenario: the load to send, and how to check the store after it. */
export interface Plan {
  readonly origin: string;
  readonly requests: readonly LoadRequest[];
  readonly expectStatus: number;
  /** Runs after the measured run; throws when the store is not as the load should leave it. */
  readonly check?: (runs: { warmup: Measurement; measured: Measurement }) => Promise<void>;
  /**
   * Loads sent to the same origin all the while the load runs, each with its connections: what
   * the load is measured beside (searches beside a GET one). Their statuses are checked like
   * the load's; their figures are reported apart (Outcome's `beside`), never mixed into its own.
   */
  readonly beside?: readonly BesideLoad[];
}

/** A load run beside a scenario's own. */
export interface BesideLoad {
  readonly requests: readonly LoadRequest[];
  readonly expectStatus: number;
  readonly connections: number;
}

export interface Scenario {
  readonly name: string;
  readonly title: string;
  /** The mnemo servers it uses (the floor also reads `app`, for the bytes to answer). */
  readonly servers: readonly ServerKind[];
  /** Least req/s as a fraction of a floor's, same setup, same run. */
  readonly floorTarget?: FloorTarget;
  /** Verifies the server answers as the load expects, and returns the load. */
  prepare(servers: Servers): Promise<Plan>;
}

/** The scenario that measures each floor. */
export const FLOOR_SCENARIOS: Readonly<Record<FloorKind, string>> = {
  fastify: 'floor',
  http: 'floor-http',
};

export interface FloorTarget {
  readonly floor: FloorKind;
  readonly min: number;
}

const BASE = '/api/v1/memory';
const PULL_CHANGES = 10;

/** The memory the GET-one and floor scenarios read: the first of the store `name`. */
function getOneTarget(server: MnemoServer, name = 'list') {
  const store = storeOf(server, name);
  const id = store.ids[0];
  if (!id) throw new Error('the list store has no memories');
  return { store, path: `${BASE}/${id}`, id };
}

function fail(scenario: string, message: string): never {
  throw new Error(`${scenario}: ${message}`);
}

/**
 * A floor: the bytes and content-type of the real GET one, answered by a floor process of
 * `kind` (floor.ts) to the same request bytes, credential included; the floor ignores them.
 */
function floorOf(kind: FloorKind, title: string): Scenario {
  const name = FLOOR_SCENARIOS[kind];
  return {
    name,
    title,
    servers: ['app'],
    async prepare(servers) {
      const app = await servers.mnemo('app');
      const { store, path } = getOneTarget(app);
      const real = await expectCall(200, app, store, 'GET', path);
      const bare = await servers.floor(kind, real.bytes, real.contentType);
      const response = await fetch(`${bare.origin}${path}`);
      const bytes = Buffer.from(await response.arrayBuffer());
      if (
        response.status !== 200 ||
        !bytes.equals(real.bytes) ||
        response.headers.get('content-type') !== real.contentType
      ) {
        fail(name, 'the floor does not answer the bytes and content-type of the real GET one');
      }
      return {
        origin: bare.origin,
        requests: [{ method: 'GET', path, headers: storeHeaders(app, store) }],
        expectStatus: 200,
      };
    },
  };
}

/** GET one memory of the store `store` of the `kind` server. */
export function getOneOf(
  scenario: Pick<Scenario, 'name' | 'title' | 'floorTarget'>,
  kind: ServerKind,
  storeName: string,
): Scenario {
  return {
    ...scenario,
    servers: [kind],
    async prepare(servers) {
      const server = await servers.mnemo(kind);
      const { store, path, id } = getOneTarget(server, storeName);
      const body = (await expectCall(200, server, store, 'GET', path)).json() as {
        memory: { id: string };
      };
      if (body.memory.id !== id) fail(scenario.name, `asked for ${id}, got ${body.memory.id}`);
      return {
        origin: server.origin,
        requests: [{ method: 'GET', path, headers: storeHeaders(server, store) }],
        expectStatus: 200,
      };
    },
  };
}

const getOne = getOneOf(
  { name: 'get-one', title: 'GET one memory', floorTarget: { floor: 'http', min: 0.3 } },
  'app',
  'list',
);

const list100: Scenario = {
  name: 'list-100',
  title: 'GET full list (100)',
  servers: ['app'],
  floorTarget: { floor: 'fastify', min: 0.3 },
  async prepare(servers) {
    const app = await servers.mnemo('app');
    const store = storeOf(app, 'list');
    const { memories } = await listMemories(app, store);
    if (memories.length !== store.size) {
      fail('list-100', `expected ${store.size} memories, got ${memories.length}`);
    }
    return {
      origin: app.origin,
      requests: [{ method: 'GET', path: BASE, headers: storeHeaders(app, store) }],
      expectStatus: 200,
    };
  },
};

/** POST new memories (every one a 201) to the store `post` of the `kind` server. */
export function postTo(
  scenario: Pick<Scenario, 'name' | 'title' | 'floorTarget'>,
  kind: ServerKind,
): Scenario {
  return {
    ...scenario,
    servers: [kind],
    prepare: (servers) => preparePost(scenario.name, servers, kind),
  };
}

async function preparePost(name: string, servers: Servers, kind: ServerKind): Promise<Plan> {
  const app = await servers.mnemo(kind);
  const store = storeOf(app, 'post');
  const before = (await listMemories(app, store)).memories.length;
  return {
    origin: app.origin,
    requests: [
      {
        method: 'POST',
        path: BASE,
        headers: { ...storeHeaders(app, store), 'content-type': 'application/json' },
        sequence: { generator: 'new-memory', name },
      },
    ],
    expectStatus: 201,
    async check({ warmup, measured }) {
      const created = (warmup.statusCounts['201'] ?? 0) + (measured.statusCounts['201'] ?? 0);
      const unanswered = warmup.unanswered + measured.unanswered;
      const grown = (await listMemories(app, store)).memories.length - before;
      if (grown < created || grown > created + unanswered) {
        fail(
          name,
          `${created} adds answered 201 and ${unanswered} were cut off at the end of a run, but the store grew by ${grown}`,
        );
      }
    },
  };
}

const post = postTo(
  // No floor target: an add on SQLite waits for an fsync, which no floor does; what it reaches
  // (0.18–0.22× of the Fastify floor before the floor was measured pinned) is accepted as it
  // stands, until a writer thread. Its targets are between setups (targets.ts).
  { name: 'post', title: 'POST add (new memory)' },
  'app',
);

const patch: Scenario = {
  name: 'patch',
  title: 'PATCH (100, round-robin)',
  servers: ['app'],
  async prepare(servers) {
    const app = await servers.mnemo('app');
    const store = storeOf(app, 'edit');
    const ids = store.ids;
    if (ids.length !== store.size) fail('patch', 'the edit store needs every id');
    return {
      origin: app.origin,
      requests: [
        {
          method: 'PATCH',
          path: BASE,
          headers: { ...storeHeaders(app, store), 'content-type': 'application/json' },
          sequence: { generator: 'revise-round-robin', store: 'edit', ids },
        },
      ],
      expectStatus: 200,
      async check() {
        const { memories } = await listMemories(app, store);
        if (memories.length !== store.size) {
          fail('patch', `the edit store holds ${memories.length} memories, not ${store.size}`);
        }
      },
    };
  },
};

/**
 * An incremental pull that always returns the same 10 changes: the cursor is taken from a full
 * list, then 10 memories spread over the store are edited through the API, so every pull since
 * that cursor answers exactly those 10.
 */
function pull(kind: 'pull-1k' | 'pull-100k', title: string): Scenario {
  return {
    name: kind,
    title,
    servers: [kind],
    async prepare(servers) {
      const server = await servers.mnemo(kind);
      const store = storeOf(server, 'pull');
      const full = await listMemories(server, store);
      if (full.memories.length !== store.size) {
        fail(kind, `expected ${store.size} memories, got ${full.memories.length}`);
      }
      const changed = new Set<string>();
      for (let i = 0; i < PULL_CHANGES; i++) {
        const memory = full.memories[Math.floor((i * full.memories.length) / PULL_CHANGES)];
        if (!memory) fail(kind, 'the store is too small for the changes');
        await expectCall(200, server, store, 'PATCH', `${BASE}/${memory.id}`, {
          content: `Changed after the cursor: ${memoryText('pull', i)}`,
        });
        changed.add(memory.id);
      }
      const expectChanges = async (when: string) => {
        const since = await listMemories(server, store, full.cursor);
        const ids = since.memories.map((m) => m.id);
        if (
          ids.length !== PULL_CHANGES ||
          !ids.every((id) => changed.has(id)) ||
          (since.deleted ?? []).length !== 0
        ) {
          fail(kind, `${when}, the pull answered ${ids.length} memories, not the ${changed.size}`);
        }
      };
      await expectChanges('before the load');
      return {
        origin: server.origin,
        requests: [
          {
            method: 'GET',
            path: `${BASE}?since=${encodeURIComponent(full.cursor)}`,
            headers: storeHeaders(server, store),
          },
        ],
        expectStatus: 200,
        check: () => expectChanges('after the load'),
      };
    },
  };
}

/** Every scenario, in the order they run. */
export const SCENARIOS: readonly Scenario[] = [
  floorOf('fastify', 'floor (bare Fastify)'),
  floorOf('http', 'floor (bare node:http)'),
  getOne,
  list100,
  post,
  patch,
  pull('pull-1k', 'pull 10 changes (1k store)'),
  pull('pull-100k', 'pull 10 changes (100k store)'),
];
