/**
 * `npm run studio:screenshots`: pictures of every page of the studio for docs/studio/, in light
 * and dark, at desktop (1280 px) and phone (375 px) width. A real mnemo serves the studio as
 * built now, seeded with an example organization; the playground talks to the OpenAI-compatible
 * simulator on loopback. Each picture is the browser's viewport, as a person first sees the page.
 * Names given on the command line take only the pictures whose name starts with one of them:
 * `npm run studio:screenshots -- connected-apps`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { newRowId } from '../../src/db/row-id.ts';
import { createClientId } from '../../src/oauth/client-secrets.ts';
import { saveConnection } from '../../src/oauth/connections.repository.ts';
import { createOidcAdapter } from '../../src/oauth/oidc-adapter.ts';
import { upsertMembership } from '../../src/tenancy/orgs.repository.ts';
import { startOpenAiSimulator } from '../../src/testing/simulators/openai-simulator.ts';
import { createUsageRepository } from '../../src/usage/usage.repository.ts';
import { DISABLED_BY_HAND } from '../../src/webhooks/webhooks.service.ts';
import { DESKTOP, PHONE, type StudioTest, startStudioTest } from '../e2e/studio-harness.ts';
import { buildStudio } from './build-studio.ts';

const OUT = fileURLToPath(new URL('../../docs/studio/', import.meta.url));
const DAY_MS = 86_400_000;
/** Why mnemo disabled the example warehouse webhook, as its delivery worker words it. */
const STOPPED_REASON = 'deliveries failed for 24 hours (last: HTTP 503)';

/**
 * A file as someone would bring from another tool: most lines fine, one folding, two refused by
 * the server, and a note pasted as it was, which is no JSON.
 */
const IMPORT_FILE = [
  {
    content: 'Pairs with Katherine on Tuesdays and Thursdays',
    category: 'relationship',
    createdAt: '2025-03-04T09:15:00Z',
  },
  { content: 'Prefers PostgreSQL over MySQL for anything transactional', category: 'preference' },
  {
    content: 'Speaks at the internal platform guild every quarter',
    createdAt: '2025-01-20T16:00:00+01:00',
  },
  { content: 'Prefers concise answers: code first, explanation after' },
  { content: 'Is learning Rust for the new settlement engine', category: 'goal' },
  { content: 'Has a standing 1:1 with Grace on Mondays', category: 'relationship' },
  { content: 'Moved to the Lisbon office', createdAt: '2999-01-01T00:00:00Z' },
  { content: 'Uses a split keyboard', source: 'old-notes' },
]
  .map((line) => JSON.stringify(line))
  .concat('Uses Vim keybindings everywhere')
  .join('\n');

interface Shot {
  readonly name: string;
  readonly path: string;
  /** What the page must show before the picture is taken. */
  readonly ready: (page: Page) => Promise<unknown>;
  /** Something to do on the page first (open a dialog, send a message). */
  readonly act?: (page: Page) => Promise<unknown>;
  /** Undoes what `act` changed, so that every picture starts from the same data. */
  readonly after?: (page: Page) => Promise<unknown>;
}

/** Ada's own memories now, by id. */
async function ownMemoryIds(t: StudioTest): Promise<Set<string>> {
  const response = await t.api(t.owner.id, 'GET', '/api/v1/memory');
  const { memories } = (await response.json()) as { memories: { id: string }[] };
  return new Set(memories.map((m) => m.id));
}

async function post(t: StudioTest, userId: string, path: string, body: unknown) {
  const response = await t.api(userId, 'POST', path, body);
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json() as Promise<Record<string, { id: string }>>;
}

/** An organization as a small team would have it after a few weeks. */
async function seed(t: StudioTest) {
  const fixtures = t.server.t.fixtures;
  const ada = t.owner;
  const grace = await t.person({ role: 'admin', name: 'Grace Hopper' });
  const katherine = await t.person({ role: 'member', name: 'Katherine Johnson' });
  const alan = await t.person({ role: 'member', name: 'Alan Turing' });
  await fixtures.status(alan.id, 'suspended');
  // First, so that the audit log's newest entries stay the team's own.
  await seedEndUsers(t);

  const mine: [string, string?][] = [
    ['Prefers concise answers: code first, explanation after', 'preference'],
    ['Staff engineer on the payments team; has been at Acme for six years', 'identity'],
    ['Wants to move the ledger service to PostgreSQL 17 before the March freeze', 'goal'],
    ['Never deploy on Fridays: the on-call rotation is thin at weekends', 'constraint'],
    [
      'Works with Grace on the reconciliation pipeline; Katherine reviews the maths',
      'relationship',
    ],
    ['The ledger service uses event sourcing with a nightly snapshot', 'project'],
    ['Writes TypeScript by day and Rust on weekends', 'identity'],
    ['Likes diagrams in answers about architecture', 'preference'],
    ['Keeps notes at https://notes.example.com/ada/ledger/architecture/event-sourcing/snapshots'],
  ];
  const saved = new Map<string, string>();
  for (const [content, category] of mine) {
    const answer = await post(t, ada.id, '/api/v1/memory', {
      content,
      ...(category ? { category } : {}),
    });
    saved.set(content, answer.memory?.id as string);
  }

  const ledger = (
    await post(t, ada.id, `/api/v1/orgs/${t.orgId}/projects`, { name: 'Ledger migration' })
  ).project as { id: string };
  await post(t, ada.id, `/api/v1/orgs/${t.orgId}/projects`, { name: 'Onboarding assistant' });
  for (const [user, access] of [
    [grace.id, 'editor'],
    [katherine.id, 'viewer'],
  ] as const) {
    await t.api(ada.id, 'PUT', `/api/v1/projects/${ledger.id}/collaborators/${user}`, { access });
  }
  for (const content of [
    'Cut-over is planned for the weekend of 14 March',
    'Reads go to the replica until the backfill is verified',
    'Rollback plan: keep the old ledger writable for 48 hours',
  ]) {
    await post(t, ada.id, '/api/v1/memory', { content, category: 'project', project: ledger.id });
  }
  await post(t, katherine.id, '/api/v1/memory', {
    content: 'Prefers morning meetings',
    category: 'preference',
  });
  // Acts for another member: these are what the audit log is for.
  await post(t, ada.id, '/api/v1/memory', {
    content: 'Leads the review of the reconciliation maths',
    category: 'goal',
    user: katherine.id,
  });

  const production = (
    await post(t, ada.id, '/api/v1/api-keys', { name: 'Production app', memory: 'read-write' })
  ).key;
  const ci = (
    await post(t, grace.id, '/api/v1/api-keys', {
      name: 'CI pipeline',
      expiresAt: new Date(Date.now() + 90 * DAY_MS).toISOString(),
      memoryAccess: 'off',
    })
  ).key;
  const old = (await post(t, ada.id, '/api/v1/api-keys', { name: 'Old laptop' })).key;
  await t.api(ada.id, 'DELETE', `/api/v1/api-keys/${old?.id}`);

  // Calls of the last four weeks, as the gateway records them.
  const today = Date.now() - (Date.now() % DAY_MS);
  const models = [
    ['openai/gpt-4.1', 2, 8],
    ['anthropic/claude-sonnet-4-5', 3, 15],
    ['google/gemini-2.5-flash', 0.3, 2.5],
  ] as const;
  const rows = [];
  for (let daysAgo = 27; daysAgo >= 0; daysAgo--) {
    const weekday = new Date(today - daysAgo * DAY_MS).getUTCDay();
    const calls = (weekday === 0 || weekday === 6 ? 6 : 24) + ((daysAgo * 7) % 11);
    for (let n = 0; n < calls; n++) {
      const [model, input, output] = models[(n + daysAgo) % 3] as (typeof models)[number];
      const prompt = 400 + ((n * 97 + daysAgo * 31) % 1600);
      const completion = 120 + ((n * 53 + daysAgo * 17) % 600);
      const byGrace = n % 4 === 0;
      rows.push({
        id: newRowId(),
        at: today - daysAgo * DAY_MS + 8 * 3_600_000 + n * 900_000,
        org_id: t.orgId,
        user_id: byGrace ? grace.id : ada.id,
        key_id: (byGrace ? ci?.id : production?.id) as string,
        model,
        provider: model.split('/')[0] as string,
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        cost_micro_usd: Math.round(prompt * input + completion * output),
        latency_ms: 600 + ((n * 37) % 900),
        status: n % 29 === 0 ? 502 : 200,
      });
    }
  }
  await createUsageRepository(t.server.t.database.db).insertMany(rows);
  await seedProposals(t, {
    keyId: production?.id as string,
    ledger: ledger.id,
    goal: saved.get(mine[2]?.[0] ?? '') as string,
  });
  await seedConnections(t);
  await seedApps(t);
  const webhooks = await seedWebhooks(t);
  // Invitations not yet accepted; the newest is Ada's, which members-invite makes again.
  await post(t, grace.id, `/api/v1/orgs/${t.orgId}/invitations`, {
    email: 'margaret.hamilton@example.com',
    role: 'admin',
  });
  await post(t, ada.id, `/api/v1/orgs/${t.orgId}/invitations`, {
    email: 'linus@example.com',
    role: 'member',
  });
  return { ledger: ledger.id, webhooks };
}

/**
 * What Ada's production app learned from her chats while the server learns for review
 * (MNEMO_MEMORY_EXTRACTION=review): the queue the Memories page shows above her list. Written
 * to the store as extraction leaves it; a chat call per proposal would need a model to learn.
 */
async function seedProposals(t: StudioTest, from: { keyId: string; ledger: string; goal: string }) {
  const at = Date.now() - 2 * 3_600_000;
  const proposal = (
    minutes: number,
    fields: { content: string; category: string; memoryId?: string; projectId?: string },
  ) => ({
    id: newRowId(),
    org_id: t.orgId,
    user_id: t.owner.id,
    key_id: from.keyId,
    project_id: fields.projectId ?? null,
    action: fields.memoryId ? ('update' as const) : ('add' as const),
    memory_id: fields.memoryId ?? null,
    content: fields.content,
    category: fields.category,
    created_at: at + minutes * 60_000,
  });
  const rows = [
    proposal(0, {
      content: 'Reviews pull requests first thing in the morning',
      category: 'preference',
    }),
    proposal(4, {
      content: 'Wants to move the ledger service to PostgreSQL 17 before the April freeze',
      category: 'goal',
      memoryId: from.goal,
    }),
    proposal(9, {
      content: 'The backfill job is throttled to 500 rows a second',
      category: 'project',
      projectId: from.ledger,
    }),
  ];
  await t.server.t.database.write((trx) =>
    trx.insertInto('memory_proposals').values(rows).execute(),
  );
}

/**
 * The people a support assistant remembers, registered under its own ids (one without a name),
 * and what it remembers of one of them. Through the API, as the app would.
 */
async function seedEndUsers(t: StudioTest) {
  const register = async (externalId: string, name?: string) => {
    const path = `/api/v1/orgs/${t.orgId}/end-users/${encodeURIComponent(externalId)}`;
    const response = await t.api(t.owner.id, 'PUT', path, name ? { name } : {});
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { endUser: { id: string } }).endUser.id;
  };
  for (const [externalId, name] of [
    ['learner-0093', 'Kwame Mensah'],
    ['auth0|65f1c2a9e4b0d7', 'Priya Raman'],
    ['customer-1190', undefined],
    ['customer-1187', 'Tomás Álvarez'],
    ['customer-1203', 'Inès Moreau'],
  ] as const) {
    await register(externalId, name);
  }
  const jane = await register('customer-42', 'Jane Doe');
  for (const [content, category] of [
    ['Prefers email over phone calls', 'preference'],
    ['On the Team plan since 2023; renews in May', 'identity'],
    ['Wants invoices addressed to the finance team, not to her', 'preference'],
    ['Asked for a refund of the March overcharge; promised by 14 April', 'goal'],
  ] as const) {
    await post(t, t.owner.id, '/api/v1/memory', { content, category, user: jane });
  }
}

/**
 * AI apps Ada connected over the weeks, as consenting leaves them: a grant of the authorization
 * server and the organization chosen for it. Written to the store directly (a sign-in per app
 * through the pages would show loopback hosts, not the apps' own).
 */
async function seedConnections(t: StudioTest) {
  const { database } = t.server.t;
  const labs = await t.server.t.fixtures.org({ name: 'Lovelace Labs' });
  await upsertMembership(database.db, labs, t.owner.id, 'owner');
  const Grants = createOidcAdapter(database);
  const grants = new Grants('Grant');
  const apps = [
    ['Codex', createClientId(), labs, 12 * DAY_MS],
    ['Cursor', createClientId(), t.orgId, 3 * DAY_MS],
    ['Claude', 'https://claude.ai/oauth/mcp-oauth-client-metadata', t.orgId, 2 * 3_600_000],
  ] as const;
  for (const [clientName, clientId, orgId, ago] of apps) {
    const grantId = newRowId();
    const at = Date.now() - ago;
    await grants.upsert(
      grantId,
      {
        kind: 'Grant',
        jti: grantId,
        accountId: t.owner.id,
        clientId,
        iat: Math.floor(at / 1000),
        resources: { [`${t.url}/mcp`]: 'memory:read memory:write' },
      },
      365 * 86_400,
    );
    await database.write((trx) =>
      saveConnection(trx, { grantId, userId: t.owner.id, clientId, clientName, orgId }, at),
    );
  }
}

/**
 * Backends registered as apps: one that serves end users (an admin, with its own rate limit), one
 * that syncs a member's notes. Through the API, as an owner's script would.
 */
async function seedApps(t: StudioTest) {
  const path = `/api/v1/orgs/${t.orgId}/apps`;
  await post(t, t.owner.id, path, {
    name: 'Support assistant',
    role: 'admin',
    rateLimitPerMinute: 1200,
  });
  await post(t, t.owner.id, path, { name: 'Notes sync', role: 'member' });
}

/**
 * Three endpoints as a team would have them after a couple of weeks: a CRM told of the end users
 * the support app registers, a project's search index (a delivery retrying behind a 502, another
 * waiting behind it), and a data warehouse mnemo disabled after a day of 503s. Made through the
 * API; their delivery logs written to the store as the worker leaves them (sending them would
 * need the endpoints). Each is of events the other pictures do not cause.
 */
async function seedWebhooks(t: StudioTest) {
  const { database } = t.server.t;
  const path = `/api/v1/orgs/${t.orgId}/webhooks`;
  const { projects } = (await (
    await t.api(t.owner.id, 'GET', `/api/v1/orgs/${t.orgId}/projects`)
  ).json()) as { projects: { id: string; name: string }[] };
  const onboarding = projects.find((p) => p.name === 'Onboarding assistant')?.id as string;
  const crm = (
    await post(t, t.owner.id, path, {
      url: 'https://hooks.acme-crm.example/mnemo',
      description: 'CRM sync',
      events: ['end_user.registered', 'end_user.erased'],
    })
  ).webhook?.id as string;
  const search = (
    await post(t, t.owner.id, path, {
      url: 'https://search.acme.example/ingest/mnemo-events',
      description: 'Onboarding search index',
      project: onboarding,
    })
  ).webhook?.id as string;
  const warehouse = (
    await post(t, t.owner.id, path, {
      url: 'https://etl.acme.example/webhooks/mnemo',
      description: 'Data warehouse',
    })
  ).webhook?.id as string;

  const now = Date.now();
  const MINUTE = 60_000;
  const HOUR = 60 * MINUTE;
  const pool = { project: onboarding };
  const customer = { user: t.owner.id, endUser: 'customer-1203' };
  const ada = { user: t.owner.id };
  type Log = {
    type: string;
    store: Record<string, string> | null;
    ago: number;
    status: 'pending' | 'retrying' | 'delivered' | 'failed';
    attempts: number;
    code?: number;
    latency?: number;
    error?: string;
    body?: string;
    next?: number;
  };
  const logs: [string, Log[]][] = [
    [
      crm,
      [
        {
          type: 'end_user.registered',
          store: customer,
          ago: 9 * 24 * HOUR,
          status: 'delivered',
          attempts: 1,
          code: 201,
          latency: 142,
          body: '{"synced":true}',
        },
        {
          type: 'end_user.registered',
          store: customer,
          ago: 3 * 24 * HOUR,
          status: 'delivered',
          attempts: 1,
          code: 201,
          latency: 128,
          body: '{"synced":true}',
        },
        {
          type: 'end_user.erased',
          store: customer,
          ago: 26 * HOUR,
          status: 'delivered',
          attempts: 2,
          code: 204,
          latency: 96,
        },
        {
          type: 'end_user.registered',
          store: customer,
          ago: 40 * MINUTE,
          status: 'delivered',
          attempts: 1,
          code: 201,
          latency: 133,
          body: '{"synced":true}',
        },
      ],
    ],
    [
      search,
      [
        {
          type: 'memory.created',
          store: pool,
          ago: 5 * HOUR,
          status: 'delivered',
          attempts: 1,
          code: 200,
          latency: 84,
          body: 'indexed',
        },
        {
          type: 'memory.updated',
          store: pool,
          ago: 4 * HOUR,
          status: 'delivered',
          attempts: 1,
          code: 200,
          latency: 91,
          body: 'indexed',
        },
        {
          type: 'webhook.test',
          store: null,
          ago: 3 * HOUR,
          status: 'delivered',
          attempts: 1,
          code: 200,
          latency: 77,
          body: 'ok',
        },
        {
          type: 'memory.deleted',
          store: pool,
          ago: 2 * HOUR,
          status: 'delivered',
          attempts: 1,
          code: 200,
          latency: 69,
          body: 'removed',
        },
        {
          type: 'store.erased',
          store: pool,
          ago: 95 * MINUTE,
          status: 'delivered',
          attempts: 1,
          code: 202,
          latency: 240,
        },
        {
          type: 'memory.created',
          store: pool,
          ago: 52 * MINUTE,
          status: 'retrying',
          attempts: 5,
          code: 502,
          latency: 30,
          error: 'HTTP 502',
          body: '<html>\n<head><title>502 Bad Gateway</title></head>\n<body><center><h1>502 Bad Gateway</h1></center></body>\n</html>',
          next: 24 * MINUTE,
        },
        { type: 'memory.created', store: pool, ago: 12 * MINUTE, status: 'pending', attempts: 0 },
      ],
    ],
    [
      warehouse,
      [
        {
          type: 'memory.created',
          store: ada,
          ago: 4 * 24 * HOUR,
          status: 'delivered',
          attempts: 1,
          code: 200,
          latency: 310,
        },
        {
          type: 'memory.updated',
          store: ada,
          ago: 2 * 24 * HOUR,
          status: 'delivered',
          attempts: 1,
          code: 200,
          latency: 287,
        },
        {
          type: 'memory.created',
          store: ada,
          ago: 26 * HOUR,
          status: 'failed',
          attempts: 14,
          code: 503,
          latency: 12,
          error: 'HTTP 503',
          body: 'Service Unavailable: nightly maintenance',
        },
        { type: 'memory.created', store: ada, ago: 25 * HOUR, status: 'pending', attempts: 0 },
      ],
    ],
  ];
  await database.write(async (trx) => {
    for (const [webhookId, entries] of logs) {
      for (const entry of entries) {
        const at = now - entry.ago;
        const kept = entry.status !== 'delivered';
        const { seq } = await trx
          .insertInto('webhook_events')
          .values({
            id: crypto.randomUUID(),
            org_id: t.orgId,
            type: entry.type,
            store_key: entry.store
              ? `${'project' in entry.store ? 'project' : 'user'}:${Object.values(entry.store)[0]}`
              : null,
            store: entry.store ? JSON.stringify(entry.store) : null,
            person_id: entry.store && 'user' in entry.store ? t.owner.id : null,
            memory_id: null,
            payload: kept
              ? JSON.stringify({ store: entry.store, memory: { id: crypto.randomUUID() } })
              : null,
            created_at: at,
          })
          .returning('seq')
          .executeTakeFirstOrThrow();
        const tried = entry.attempts > 0;
        const last = entry.status === 'delivered' ? at + 400 : now - 2 * HOUR;
        await trx
          .insertInto('webhook_deliveries')
          .values({
            id: newRowId(),
            webhook_id: webhookId,
            event_seq: Number(seq),
            store_key: entry.store
              ? `${'project' in entry.store ? 'project' : 'user'}:${Object.values(entry.store)[0]}`
              : null,
            status: entry.status,
            attempts: entry.attempts,
            next_attempt_at:
              entry.status === 'retrying'
                ? now + (entry.next ?? HOUR)
                : entry.status === 'pending'
                  ? at
                  : null,
            retry_since: entry.error ? at : null,
            response_status: entry.code ?? null,
            latency_ms: entry.latency ?? null,
            error: entry.error ?? null,
            response_body: entry.body ?? null,
            created_at: at,
            last_attempt_at: tried ? (entry.status === 'retrying' ? now - 6 * MINUTE : last) : null,
            delivered_at: entry.status === 'delivered' ? at + 400 : null,
          })
          .execute();
      }
    }
    // Made over the last weeks, in this order; the warehouse given up on two hours ago.
    for (const [id, days] of [
      [crm, 16],
      [search, 12],
      [warehouse, 9],
    ] as const) {
      const made = now - days * 24 * HOUR;
      await trx
        .updateTable('webhooks')
        .set({ created_at: made, updated_at: made })
        .where('id', '=', id)
        .execute();
    }
    await trx
      .updateTable('webhooks')
      .set({
        enabled: 0,
        disabled_reason: STOPPED_REASON,
        disabled_at: now - 2 * HOUR,
        updated_at: now - 2 * HOUR,
      })
      .where('id', '=', warehouse)
      .execute();
  });
  return { search, warehouse };
}

/**
 * Whether the warehouse webhook shows as disabled by mnemo (the webhooks' pictures) or by hand
 * (the others, which would otherwise all show the notice every page gives of it). Disabled
 * either way, so that its delivery worker never tries the example hosts.
 */
async function stoppedByMnemo(t: StudioTest, warehouse: string, byMnemo: boolean) {
  await t.server.t.database.write((trx) =>
    trx
      .updateTable('webhooks')
      .set({ disabled_reason: byMnemo ? STOPPED_REASON : DISABLED_BY_HAND })
      .where('id', '=', warehouse)
      .execute(),
  );
}

/** The webhook the `webhooks-secret` picture adds, gone again so that each list is the same. */
async function removeAddedWebhook(t: StudioTest) {
  const path = `/api/v1/orgs/${t.orgId}/webhooks`;
  const { webhooks } = (await (await t.api(t.owner.id, 'GET', path)).json()) as {
    webhooks: { id: string; description?: string }[];
  };
  for (const webhook of webhooks.filter((w) => w.description === 'Billing events')) {
    await t.api(t.owner.id, 'DELETE', `${path}/${webhook.id}`);
  }
}

/** The app registered by the `apps-created` picture, gone again so that each list is the same. */
async function unregisterShown(t: StudioTest) {
  const path = `/api/v1/orgs/${t.orgId}/apps`;
  const { apps } = (await (await t.api(t.owner.id, 'GET', path)).json()) as {
    apps: { id: string; name: string }[];
  };
  for (const app of apps.filter((a) => a.name === 'Billing backend')) {
    await t.api(t.owner.id, 'DELETE', `${path}/${app.id}`);
  }
}

async function main() {
  const sim = await startOpenAiSimulator({ apiKey: 'sk-sim', chunkDelayMs: 5 });
  const work = mkdtempSync(join(tmpdir(), 'mnemo-screenshots-'));
  const catalog = join(work, 'mnemo.config.json');
  const model = (id: string, upstream: string) => ({
    id,
    provider: 'openai',
    upstream,
    contextWindow: 128_000,
    price: { input: 2, output: 8 },
  });
  writeFileSync(
    catalog,
    JSON.stringify({
      providers: { openai: { kind: 'openai', baseUrl: sim.baseUrl, apiKeyEnv: 'SIM_KEY' } },
      models: [model('openai/gpt-4.1', 'gpt-4.1'), model('openai/gpt-4.1-mini', 'gpt-4.1-mini')],
      router: { id: 'auto', order: ['openai/gpt-4.1-mini', 'openai/gpt-4.1'] },
    }),
  );
  await buildStudio(join(work, 'studio'));
  const t = await startStudioTest({
    studioDirectory: join(work, 'studio'),
    // Rate limits on, as on a real server (the apps pages show the default), above what the
    // pictures' own requests need.
    env: { MNEMO_CONFIG: catalog, SIM_KEY: 'sk-sim', MNEMO_RATE_LIMIT_PER_MINUTE: '600' },
  });
  try {
    const { ledger, webhooks } = await seed(t);
    /** Ada's memories before the import the results picture makes, deleted again after it. */
    let beforeImport = new Set<string>();
    const shots: Shot[] = [
      {
        name: 'memories',
        path: '/memories',
        ready: (p) => p.getByText('Staff engineer').waitFor(),
      },
      {
        name: 'memories-project-pool',
        path: `/memories/projects/${ledger}`,
        ready: (p) => p.getByText('Cut-over is planned').waitFor(),
      },
      {
        name: 'memories-import',
        path: '/memories',
        ready: (p) => p.getByRole('table').getByText('Pairs with Katherine').waitFor(),
        act: async (p) => {
          await p.getByRole('button', { name: 'Import' }).click();
          await p.getByLabel('File').setInputFiles({
            name: 'notes.jsonl',
            mimeType: 'application/x-ndjson',
            buffer: Buffer.from(IMPORT_FILE),
          });
        },
      },
      {
        name: 'memories-import-results',
        path: '/memories',
        ready: (p) => p.getByRole('list', { name: 'Import results' }).waitFor(),
        act: async (p) => {
          beforeImport = await ownMemoryIds(t);
          await p.getByRole('button', { name: 'Import' }).click();
          await p.getByLabel('File').setInputFiles({
            name: 'notes.jsonl',
            mimeType: 'application/x-ndjson',
            buffer: Buffer.from(IMPORT_FILE),
          });
          await p.getByRole('button', { name: /^Import \d+ memories$/ }).click();
        },
        after: async () => {
          for (const id of await ownMemoryIds(t)) {
            if (!beforeImport.has(id)) await t.api(t.owner.id, 'DELETE', `/api/v1/memory/${id}`);
          }
        },
      },
      {
        name: 'memories-delete-all',
        path: `/memories/projects/${ledger}`,
        ready: (p) => p.getByRole('dialog', { name: /^Delete all/ }).waitFor(),
        act: async (p) => {
          await p.getByText('Cut-over is planned').waitFor();
          await p.getByRole('button', { name: 'Delete all' }).click();
        },
      },
      {
        name: 'projects',
        path: '/projects',
        ready: (p) => p.getByText('Onboarding assistant').first().waitFor(),
      },
      {
        name: 'project',
        path: `/projects/${ledger}`,
        ready: (p) => p.getByText('Katherine Johnson').first().waitFor(),
      },
      {
        name: 'members',
        path: '/members',
        ready: (p) => p.getByText('margaret.hamilton@example.com').first().waitFor(),
      },
      {
        name: 'members-pending',
        path: '/members',
        ready: (p) => p.getByText('margaret.hamilton@example.com').first().waitFor(),
        act: (p) =>
          p
            .getByRole('region', { name: /Pending invitations/ })
            .evaluate((section) => section.scrollIntoView({ block: 'center' })),
      },
      {
        name: 'members-invite',
        path: '/members',
        ready: (p) => p.getByRole('textbox', { name: 'Invitation link' }).waitFor(),
        act: async (p) => {
          await p.getByRole('button', { name: 'Invite', exact: true }).click();
          await p.getByRole('textbox', { name: 'Email' }).fill('linus@example.com');
          await p.getByRole('dialog').getByRole('button', { name: 'Invite', exact: true }).click();
        },
      },
      {
        name: 'end-users',
        path: '/end-users',
        ready: (p) => p.getByText('Tomás Álvarez').waitFor(),
      },
      {
        name: 'end-users-erase',
        path: '/end-users',
        ready: (p) =>
          p
            .getByRole('dialog', { name: 'Erase customer-42?' })
            .getByRole('listitem')
            .first()
            .waitFor(),
        act: (p) => p.getByRole('button', { name: 'Erase customer-42' }).click(),
      },
      {
        name: 'memories-end-user',
        path: '/memories/end-users/customer-42',
        ready: (p) => p.getByText('Prefers email over phone calls').waitFor(),
      },
      {
        name: 'usage',
        path: '/usage?range=30',
        ready: (p) => p.locator('canvas').first().waitFor(),
      },
      {
        name: 'audit',
        path: '/audit',
        ready: (p) => p.getByText('Katherine Johnson').first().waitFor(),
      },
      {
        name: 'playground',
        path: '/playground',
        ready: (p) => p.getByText('Tokens').first().waitFor(),
        act: async (p) => {
          await p.getByRole('combobox', { name: 'Model' }).waitFor();
          await p.getByRole('combobox', { name: 'Memory' }).selectOption('read');
          await p
            .getByRole('textbox', { name: 'Message' })
            .fill('What should I keep in mind for the ledger cut-over?');
          await p.getByRole('button', { name: 'Send' }).click();
        },
      },
      {
        name: 'api-keys',
        path: '/settings/api-keys',
        ready: (p) => p.getByText('CI pipeline').first().waitFor(),
      },
      {
        name: 'api-keys-create',
        path: '/settings/api-keys',
        ready: (p) => p.getByRole('combobox', { name: 'Memory rights' }).waitFor(),
        act: async (p) => {
          await p.getByRole('button', { name: 'Create key' }).click();
          await p.getByRole('textbox', { name: 'Name' }).fill('Support assistant');
          await p.getByRole('combobox', { name: 'Memory in chat calls' }).selectOption('read');
          await p.getByRole('combobox', { name: 'Memory rights' }).selectOption('read');
        },
      },
      {
        name: 'api-keys-edit-memory',
        path: '/settings/api-keys',
        ready: (p) => p.getByRole('dialog', { name: 'Memory of “Production app”' }).waitFor(),
        act: (p) =>
          p
            .getByRole('row')
            .filter({ hasText: 'Production app' })
            .getByRole('button', { name: 'Edit memory' })
            .click(),
      },
      {
        name: 'api-keys-created',
        path: '/settings/api-keys',
        ready: (p) => p.getByRole('textbox', { name: 'Secret key' }).waitFor(),
        act: async (p) => {
          await p.getByRole('button', { name: 'Create key' }).click();
          await p.getByRole('textbox', { name: 'Name' }).fill('Analytics notebook');
          await p.getByRole('button', { name: 'Create', exact: true }).click();
        },
      },
      {
        name: 'connected-apps',
        path: '/settings/connected-apps',
        ready: (p) => p.getByText('Codex').first().waitFor(),
      },
      {
        name: 'connected-apps-disconnect',
        path: '/settings/connected-apps',
        ready: (p) => p.getByRole('dialog', { name: 'Disconnect “Cursor”?' }).waitFor(),
        act: (p) =>
          p
            .getByRole('row')
            .filter({ hasText: 'Cursor' })
            .getByRole('button', { name: 'Disconnect' })
            .click(),
      },
      {
        name: 'apps',
        path: '/settings/apps',
        ready: (p) => p.getByRole('article', { name: 'Notes sync' }).waitFor(),
        act: async (p) => {
          await unregisterShown(t);
          await p.reload();
        },
      },
      {
        name: 'apps-register',
        path: '/settings/apps',
        ready: (p) => p.getByRole('dialog', { name: 'Register app' }).waitFor(),
        act: async (p) => {
          await p.getByRole('button', { name: 'Register app' }).click();
          await p.getByRole('textbox', { name: 'Name' }).fill('Billing backend');
          await p.getByRole('radio', { name: 'Admin', exact: true }).check();
        },
      },
      {
        name: 'apps-created',
        path: '/settings/apps',
        ready: (p) => p.getByRole('textbox', { name: 'Client secret' }).waitFor(),
        act: async (p) => {
          await p.getByRole('button', { name: 'Register app' }).click();
          await p.getByRole('textbox', { name: 'Name' }).fill('Billing backend');
          await p.getByRole('radio', { name: 'Admin', exact: true }).check();
          await p.getByRole('button', { name: 'Register', exact: true }).click();
        },
      },
      {
        name: 'apps-revoke',
        path: '/settings/apps',
        ready: (p) => p.getByRole('dialog', { name: 'Revoke “Notes sync”?' }).waitFor(),
        act: (p) =>
          p
            .getByRole('article', { name: 'Notes sync' })
            .getByRole('button', { name: 'Revoke' })
            .click(),
      },
      {
        name: 'webhooks',
        path: '/settings/webhooks',
        ready: (p) => p.getByRole('article', { name: 'Data warehouse' }).waitFor(),
        act: async (p) => {
          await removeAddedWebhook(t);
          await p.reload();
        },
      },
      {
        name: 'webhooks-add',
        path: '/settings/webhooks',
        ready: (p) => p.getByRole('dialog', { name: 'Add webhook' }).waitFor(),
        act: async (p) => {
          await p.getByRole('button', { name: 'Add webhook' }).click();
          await p
            .getByRole('textbox', { name: 'Endpoint URL' })
            .fill('https://billing.acme.example/hooks/mnemo');
          await p.getByRole('textbox', { name: 'Description (optional)' }).fill('Billing events');
          await p.getByRole('checkbox', { name: 'end_user.registered' }).check();
          await p.getByRole('checkbox', { name: 'end_user.erased' }).check();
        },
      },
      {
        name: 'webhooks-secret',
        path: '/settings/webhooks',
        ready: (p) => p.getByRole('textbox', { name: 'Signing secret' }).waitFor(),
        act: async (p) => {
          await p.getByRole('button', { name: 'Add webhook' }).click();
          await p
            .getByRole('textbox', { name: 'Endpoint URL' })
            .fill('https://billing.acme.example/hooks/mnemo');
          await p.getByRole('textbox', { name: 'Description (optional)' }).fill('Billing events');
          await p.getByRole('checkbox', { name: 'end_user.registered' }).check();
          await p.getByRole('dialog').getByRole('button', { name: 'Add webhook' }).click();
        },
        after: () => removeAddedWebhook(t),
      },
      {
        name: 'webhooks-deliveries',
        path: `/settings/webhooks/${webhooks.search}`,
        ready: (p) => p.getByText('502 Bad Gateway').first().waitFor(),
        act: async (p) => {
          const row = p
            .getByRole('region', { name: 'Delivery log' })
            .getByRole('row')
            .filter({ hasText: 'Retrying' });
          await row.getByRole('button', { name: 'Details' }).click();
        },
      },
      {
        name: 'webhooks-disabled',
        path: `/settings/webhooks/${webhooks.warehouse}`,
        ready: (p) => p.getByRole('cell', { name: 'Failed' }).waitFor(),
      },
    ];
    const wanted = process.argv.slice(2);
    const taken = shots.filter(
      (shot) => wanted.length === 0 || wanted.some((name) => shot.name.startsWith(name)),
    );
    mkdirSync(OUT, { recursive: true });
    for (const scheme of ['light', 'dark'] as const) {
      for (const [width, viewport] of [
        ['desktop', DESKTOP],
        ['phone', PHONE],
      ] as const) {
        const page = await t.newPage({ viewport, colorScheme: scheme });
        await t.signIn(page, '/memories');
        for (const shot of taken) {
          await stoppedByMnemo(t, webhooks.warehouse, shot.name.startsWith('webhooks'));
          await page.goto(`${t.url}/studio${shot.path}`);
          await page.getByRole('navigation', { name: 'Main' }).waitFor();
          await shot.act?.(page);
          await shot.ready(page);
          // Let the page settle: fonts, the chart's first frame, the live status.
          await page.waitForTimeout(400);
          const file = join(OUT, `${shot.name}-${scheme}-${width}.png`);
          await page.screenshot({ path: file });
          await shot.after?.(page);
          process.stdout.write(`${file}\n`);
        }
        await page.context().close();
      }
    }
  } finally {
    await t.close();
    await sim.close();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
