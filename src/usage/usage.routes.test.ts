import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { MemberRole } from '../db/tables.ts';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { scopedToken as credentialWithScope } from '../testing/scoped-token.ts';
import { createUsageRecorder, type UsageCall, type UsageRecorder } from './usage.recorder.ts';
import { EXPORT_PAGE_SIZE } from './usage.service.ts';

const USAGE = '/api/v1/usage';
const EXPORT = '/api/v1/usage/export.csv';
const HEADER =
  'time,user_id,key_id,model,provider,prompt_tokens,completion_tokens,total_tokens,cost_usd,latency_ms,status,reasoning_tokens,kind\r\n';

let t: TestApp;
let recorder: UsageRecorder;
beforeAll(async () => {
  t = await buildTestApp();
  recorder = createUsageRecorder(t.database);
});
afterAll(() => t?.close());

const at = (iso: string) => Date.parse(iso);

function call(orgId: string, userId: string, extra: Partial<UsageCall> = {}): UsageCall {
  return {
    orgId,
    userId,
    keyId: randomUUID(),
    model: 'openai/gpt-4.1',
    provider: 'openai',
    promptTokens: 100,
    completionTokens: 20,
    costMicroUsd: 360,
    latencyMs: 500,
    status: 200,
    at: at('2026-03-01T12:00:00Z'),
    ...extra,
  };
}

type Who = { token: string; orgId: string };
const get = (who: Who, url: string) => t.request(who, { method: 'GET', url });

/** A credential of the built-in issuer with a `scope` claim, as the authorization server makes. */
const scopedToken = (userId: string, scope: string) => credentialWithScope(t, userId, scope);

describe('who may read usage', () => {
  const range = '?from=2026-03-01&to=2026-03-02';
  let orgId: string;
  const people: Partial<Record<MemberRole, { id: string; token: string }>> = {};

  beforeAll(async () => {
    orgId = await t.fixtures.org();
    for (const role of ['owner', 'admin', 'member'] as const) {
      people[role] = await t.fixtures.user(orgId, role);
      await recorder.record(call(orgId, people[role].id, { model: `model-of-${role}` }));
    }
  });

  const models = (body: { groups: { key: string }[] }) => body.groups.map((g) => g.key);

  test.each([
    USAGE,
    EXPORT,
  ])('%s: owners and admins see the organization, members their own', async (path) => {
    for (const role of ['owner', 'admin', 'member'] as const) {
      const who = { token: people[role]?.token ?? '', orgId };
      const url = path === USAGE ? `${path}${range}&groupBy=model` : `${path}${range}`;
      const res = await get(who, url);
      expect(res.statusCode, role).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      const seen =
        path === USAGE
          ? models(res.json())
          : res.body
              .split('\r\n')
              .slice(1, -1)
              .map((line) => line.split(',')[3])
              .sort();
      expect(seen, role).toEqual(
        role === 'member'
          ? ['model-of-member']
          : ['model-of-admin', 'model-of-member', 'model-of-owner'],
      );
    }
  });

  test.each([
    USAGE,
    EXPORT,
  ])('%s: everyone else is refused, in the memory API’s order', async (path) => {
    const url = `${path}${range}`;
    const outsider = await t.fixtures.user(await t.fixtures.org(), 'owner');
    const suspended = await t.fixtures.user(orgId, 'owner');
    await t.fixtures.status(suspended.id, 'suspended');
    const owner = people.owner?.id ?? '';
    const cases: [string, Record<string, string>, number, string | undefined][] = [
      [
        'member of another organization',
        { authorization: `Bearer ${outsider.token}` },
        403,
        'not a member of this organization',
      ],
      ['suspended', { authorization: `Bearer ${suspended.token}` }, 403, 'account is suspended'],
      ['no credential', {}, 401, undefined],
      ['an API key', { authorization: `Bearer mnemo_sk_${'A'.repeat(49)}` }, 401, undefined],
      [
        'a credential without the usage scope',
        { authorization: `Bearer ${await scopedToken(owner, 'memory:read')}` },
        403,
        'the credential lacks the usage scope',
      ],
    ];
    for (const [name, headers, status, message] of cases) {
      const res = await t.app.inject({
        method: 'GET',
        url,
        headers: { 'x-organization-id': orgId, ...headers },
      });
      expect(res.statusCode, name).toBe(status);
      expect(res.headers['cache-control'], name).toBe('no-store');
      expect(Object.keys(res.json()), name).toEqual(['error']);
      if (message) expect(res.json().error, name).toBe(message);
    }
    // The usage scope alone is enough.
    const scoped = await scopedToken(owner, 'usage');
    expect((await get({ token: scoped, orgId }, url)).statusCode).toBe(200);
    // And X-Organization-Id is required, as on the memory API.
    const noOrg = await t.app.inject({
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${people.owner?.token}` },
    });
    expect([noOrg.statusCode, noOrg.json()]).toEqual([
      400,
      { error: 'X-Organization-Id is required' },
    ]);
  });

  test('other methods are 405', async () => {
    const who = { token: people.owner?.token ?? '', orgId };
    for (const url of [USAGE, EXPORT]) {
      const res = await t.request(who, { method: 'POST', url, payload: {} });
      expect([res.statusCode, res.headers.allow, res.json()]).toEqual([
        405,
        'GET, HEAD',
        { error: 'method not allowed' },
      ]);
    }
  });
});

describe('the report', () => {
  let who: Who;
  let userId: string;
  const keyA = '0190a000-0000-7000-8000-00000000000a';
  const keyB = '0190a000-0000-7000-8000-00000000000b';

  beforeAll(async () => {
    const orgId = await t.fixtures.org();
    const owner = await t.fixtures.user(orgId, 'owner');
    userId = owner.id;
    who = { token: owner.token, orgId };
    const calls: Partial<UsageCall>[] = [
      { at: at('2026-02-28T23:59:59.999Z'), keyId: keyA }, // before the range
      { at: at('2026-03-01T00:00:00.000Z'), keyId: keyA, costMicroUsd: 1 }, // exactly from
      { at: at('2026-03-01T23:59:59.999Z'), keyId: keyB, model: 'b/model', costMicroUsd: 2 },
      {
        at: at('2026-03-02T10:00:00.000Z'),
        keyId: keyB,
        model: 'b/model',
        costMicroUsd: 1_000_000,
        reasoningTokens: 12,
      },
      { at: at('2026-03-03T00:00:00.000Z'), keyId: keyA }, // exactly to
    ];
    for (const extra of calls) await recorder.record(call(orgId, userId, extra));
  });

  test('a call at exactly from counts, one at exactly to does not', async () => {
    const res = await get(who, `${USAGE}?from=2026-03-01&to=2026-03-03`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      from: '2026-03-01T00:00:00.000Z',
      to: '2026-03-03T00:00:00.000Z',
      groupBy: 'day',
      totals: {
        requests: 3,
        promptTokens: 300,
        completionTokens: 60,
        reasoningTokens: 12,
        totalTokens: 360,
        costUsd: 1.000003,
        unpricedRequests: 0,
      },
      groups: [
        {
          key: '2026-03-01',
          requests: 2,
          promptTokens: 200,
          completionTokens: 40,
          reasoningTokens: 0,
          totalTokens: 240,
          costUsd: 0.000003,
          unpricedRequests: 0,
        },
        {
          key: '2026-03-02',
          requests: 1,
          promptTokens: 100,
          completionTokens: 20,
          reasoningTokens: 12,
          totalTokens: 120,
          costUsd: 1,
          unpricedRequests: 0,
        },
      ],
    });
  });

  test('date-times with zones, and grouping by model and key', async () => {
    const query = `from=${encodeURIComponent('2026-03-01T01:00:00+01:00')}&to=${encodeURIComponent('2026-03-02T23:59:59.999Z')}`;
    const byModel = (await get(who, `${USAGE}?${query}&groupBy=model`)).json();
    expect(byModel.from).toBe('2026-03-01T00:00:00.000Z');
    expect(byModel.to).toBe('2026-03-02T23:59:59.999Z');
    expect(
      byModel.groups.map((g: { key: string; requests: number }) => [g.key, g.requests]),
    ).toEqual([
      ['b/model', 2],
      ['openai/gpt-4.1', 1],
    ]);
    const byKey = (await get(who, `${USAGE}?${query}&groupBy=key`)).json();
    expect(byKey.groups.map((g: { key: string; costUsd: number }) => [g.key, g.costUsd])).toEqual([
      [keyA, 0.000001],
      [keyB, 1.000002],
    ]);
  });

  test('an empty range has zero totals and no groups', async () => {
    const res = await get(who, `${USAGE}?from=2026-03-01&to=2026-03-01&groupBy=key`);
    expect(res.json()).toEqual({
      from: '2026-03-01T00:00:00.000Z',
      to: '2026-03-01T00:00:00.000Z',
      groupBy: 'key',
      totals: {
        requests: 0,
        promptTokens: 0,
        completionTokens: 0,
        reasoningTokens: 0,
        totalTokens: 0,
        costUsd: 0,
        unpricedRequests: 0,
      },
      groups: [],
    });
  });

  test('by default, the 30 days up to now, by day', async () => {
    const before = Date.now();
    const body = (await get(who, USAGE)).json();
    expect(body.groupBy).toBe('day');
    const to = Date.parse(body.to);
    expect(to).toBeGreaterThanOrEqual(before);
    expect(to).toBeLessThanOrEqual(Date.now());
    expect(to - Date.parse(body.from)).toBe(30 * 86_400_000);
  });

  test.each([
    [`${USAGE}?groupBy=week`, 'groupBy must be one of: day, model, key, kind'],
    [
      `${USAGE}?from=2026-02-30`,
      'from must be a date (YYYY-MM-DD) or a date-time with a time zone (YYYY-MM-DDTHH:mm:ssZ)',
    ],
    [
      `${USAGE}?to=2026-03-01T10:00:00`,
      'to must be a date (YYYY-MM-DD) or a date-time with a time zone (YYYY-MM-DDTHH:mm:ssZ)',
    ],
    [`${USAGE}?from=2026-03-02&to=2026-03-01`, 'from must not be after to'],
    [`${USAGE}?from=2026-01-01&to=2027-01-03`, 'the range must not be longer than 366 days'],
    [`${USAGE}?from=2026-01-01&from=2026-01-02`, 'from must be a string'],
    [`${USAGE}?form=2026-01-01`, 'unknown query parameter: form'],
    [
      `${EXPORT}?from=yesterday`,
      'from must be a date (YYYY-MM-DD) or a date-time with a time zone (YYYY-MM-DDTHH:mm:ssZ)',
    ],
    [`${EXPORT}?from=2026-03-02&to=2026-03-01`, 'from must not be after to'],
    [`${EXPORT}?groupBy=day`, 'unknown query parameter: groupBy'],
  ])('%s is 400: %s', async (url, message) => {
    const res = await get(who, url);
    expect([res.statusCode, res.json(), res.headers['cache-control']]).toEqual([
      400,
      { error: message },
      'no-store',
    ]);
  });
});

describe('calls of unknown cost (a model without a price)', () => {
  let who: Who;
  let userId: string;
  const keyId = randomUUID();

  beforeAll(async () => {
    const orgId = await t.fixtures.org();
    const owner = await t.fixtures.user(orgId, 'owner');
    userId = owner.id;
    who = { token: owner.token, orgId };
    const local = { model: 'local/llama3.1', provider: 'local', costMicroUsd: null, keyId };
    for (const extra of [
      // 1 March: a priced call and an unpriced one.
      { at: at('2026-03-01T08:00:00Z'), keyId, costMicroUsd: 4800 },
      { ...local, at: at('2026-03-01T09:00:00Z'), promptTokens: 50, completionTokens: 5 },
      // 2 March: only unpriced calls.
      { ...local, at: at('2026-03-02T09:00:00Z') },
      { ...local, at: at('2026-03-02T10:00:00Z') },
    ]) {
      await recorder.record(call(orgId, userId, extra));
    }
  });

  test('a group sums the known costs and counts the others; with none known its cost is null', async () => {
    const res = await get(who, `${USAGE}?from=2026-03-01&to=2026-03-03`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      from: '2026-03-01T00:00:00.000Z',
      to: '2026-03-03T00:00:00.000Z',
      groupBy: 'day',
      totals: {
        requests: 4,
        promptTokens: 350,
        completionTokens: 65,
        reasoningTokens: 0,
        totalTokens: 415,
        costUsd: 0.0048,
        unpricedRequests: 3,
      },
      groups: [
        {
          key: '2026-03-01',
          requests: 2,
          promptTokens: 150,
          completionTokens: 25,
          reasoningTokens: 0,
          totalTokens: 175,
          costUsd: 0.0048,
          unpricedRequests: 1,
        },
        {
          key: '2026-03-02',
          requests: 2,
          promptTokens: 200,
          completionTokens: 40,
          reasoningTokens: 0,
          totalTokens: 240,
          costUsd: null,
          unpricedRequests: 2,
        },
      ],
    });
    // Only unknown costs in the range: the total is unknown too, never $0.
    const unknown = (await get(who, `${USAGE}?from=2026-03-02&to=2026-03-03&groupBy=model`)).json();
    expect(unknown.totals).toMatchObject({ requests: 2, costUsd: null, unpricedRequests: 2 });
  });

  test('the export leaves an unknown cost empty', async () => {
    const res = await get(who, `${EXPORT}?from=2026-03-01&to=2026-03-02`);
    expect(res.body).toBe(
      HEADER +
        `2026-03-01T08:00:00.000Z,${userId},${keyId},openai/gpt-4.1,openai,100,20,120,0.004800,500,200,0,chat\r\n` +
        `2026-03-01T09:00:00.000Z,${userId},${keyId},local/llama3.1,local,50,5,55,,500,200,0,chat\r\n`,
    );
  });
});

describe('the CSV export', () => {
  test('a header and one line per call, oldest first, escaped; a file to download', async () => {
    const orgId = await t.fixtures.org();
    const owner = await t.fixtures.user(orgId, 'owner');
    const keyId = randomUUID();
    await recorder.record(
      call(orgId, owner.id, {
        keyId,
        at: at('2026-03-01T10:00:00.250Z'),
        model: 'odd,"model"',
        provider: 'simulated',
        promptTokens: 7,
        completionTokens: 3,
        costMicroUsd: 4800,
        latencyMs: 1234,
        status: 502,
        reasoningTokens: 2,
      }),
    );
    await recorder.record(
      call(orgId, owner.id, { keyId, at: at('2026-03-01T09:00:00Z'), totalTokens: 125 }),
    );
    await recorder.record(call(orgId, owner.id, { keyId, at: at('2026-03-02T00:00:00Z') }));
    const res = await get(
      { token: owner.token, orgId },
      `${EXPORT}?from=2026-03-01&to=${encodeURIComponent('2026-03-02T00:00:00Z')}`,
    );
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(
      'attachment; filename="mnemo-usage-2026-03-01-2026-03-02.csv"',
    );
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toBe(
      HEADER +
        `2026-03-01T09:00:00.000Z,${owner.id},${keyId},openai/gpt-4.1,openai,100,20,125,0.000360,500,200,0,chat\r\n` +
        `2026-03-01T10:00:00.250Z,${owner.id},${keyId},"odd,""model""",simulated,7,3,10,0.004800,1234,502,2,chat\r\n`,
    );
  });

  test('an empty range is the header alone; a bound that is not midnight names the file', async () => {
    const orgId = await t.fixtures.org();
    const owner = await t.fixtures.user(orgId, 'owner');
    const res = await get(
      { token: owner.token, orgId },
      `${EXPORT}?from=${encodeURIComponent('2026-03-01T09:30:00Z')}&to=2026-03-02`,
    );
    expect(res.body).toBe(HEADER);
    expect(res.headers['content-disposition']).toBe(
      'attachment; filename="mnemo-usage-2026-03-01T093000Z-2026-03-02.csv"',
    );
  });

  test('pages through a long range without losing or repeating a call, ties on time included', async () => {
    const orgId = await t.fixtures.org();
    const owner = await t.fixtures.user(orgId, 'owner');
    const count = 2 * EXPORT_PAGE_SIZE + 345;
    const base = at('2026-03-01T00:00:00Z');
    const rows = Array.from({ length: count }, (_, i) => ({
      id: randomUUID(),
      // Runs of calls in one millisecond, some of them across a page boundary.
      at: base + Math.floor(i / 7),
      org_id: orgId,
      user_id: owner.id,
      key_id: 'k',
      model: 'm',
      provider: 'p',
      prompt_tokens: i,
      completion_tokens: 0,
      total_tokens: i,
      cost_micro_usd: 0,
      latency_ms: 0,
      status: 200,
    }));
    for (let i = 0; i < rows.length; i += 500) {
      const batch = rows.slice(i, i + 500);
      await t.database.write((trx) => trx.insertInto('usage_records').values(batch).execute());
    }
    const res = await get({ token: owner.token, orgId }, `${EXPORT}?from=2026-03-01&to=2026-03-02`);
    const lines = res.body.split('\r\n');
    expect(lines.shift()).toBe(HEADER.slice(0, -2));
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(count);
    const prompts = lines.map((line) => Number(line.split(',')[5]));
    expect(new Set(prompts).size).toBe(count);
    const times = lines.map((line) => Date.parse(line.split(',')[0] ?? ''));
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });
});

test('both endpoints are in the OpenAPI document', async () => {
  const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  for (const path of [USAGE, EXPORT]) {
    const get = doc.paths[path]?.get;
    expect(get?.tags, path).toEqual(['usage']);
    expect(get?.security, path).toEqual([{ platformCredential: ['usage'] }]);
    expect(get?.responses?.['401'] ?? get?.responses?.['4XX'], path).toBeDefined();
  }
  expect(doc.paths[USAGE].get.responses['200'].content['application/json'].schema).toBeDefined();
  expect(doc.paths[EXPORT].get.responses['200'].content['text/csv']).toBeDefined();
  expect(doc.paths[EXPORT].get.responses['200'].headers['content-disposition']).toBeDefined();
});
