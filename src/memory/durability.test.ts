/**
 * Nothing acknowledged is lost: a real server process on a store (a SQLite file, or a PostgreSQL
 * database), killed without warning (SIGKILL) right after the last acknowledgement or with
 * writes still in flight, and stopped with SIGTERM while requests are in flight. After a restart
 * on the same store, every
 * acknowledged write is there, and cursors taken before the kill still serve the changes.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { type Demo, readDemo, startDemoServer } from '../testing/demo-server.ts';
import { storesOfThisFile } from '../testing/file-stores.ts';
import type { ServerProcess } from '../testing/server-process.ts';
import type { MemoryItem } from './memory.schemas.ts';

type Item = MemoryItem;

interface Answer {
  /** 0: no response (connection refused or reset). */
  status: number;
  body: unknown;
  headers: Headers | undefined;
  error?: string;
}

const newStore = storesOfThisFile();
const servers: ServerProcess[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) await server.kill();
});
/** A store of the suite's engine, removed once the file's tests are done. */
async function tempDatabase(): Promise<string> {
  return (await newStore()).url;
}

async function startServer(url: string, port?: number): Promise<ServerProcess> {
  const server = await startDemoServer(url, port);
  servers.push(server);
  return server;
}

function client(url: string, demo: Demo) {
  return async (method: string, path: string, body?: unknown): Promise<Answer> => {
    try {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${demo.token}`,
          'x-organization-id': demo.orgId,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(20_000),
      });
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = { malformed: text };
      }
      return { status: response.status, body: parsed, headers: response.headers };
    } catch (error) {
      return { status: 0, body: undefined, headers: undefined, error: String(error) };
    }
  };
}
type Client = ReturnType<typeof client>;

const memoryPath = '/api/v1/memory';
const since = (cursor: string) => `${memoryPath}?since=${encodeURIComponent(cursor)}`;

interface ListBody {
  memories: Item[];
  deleted?: string[];
  cursor: string;
}

async function fullList(call: Client): Promise<ListBody> {
  const answer = await call('GET', memoryPath);
  expect(answer.status).toBe(200);
  const body = answer.body as ListBody;
  expect(body.deleted).toBeUndefined();
  return body;
}

/** The spec's sync procedure, steps 3–5: upsert, remove `deleted`, return the new cursor. */
function applyPull(mirror: Map<string, Item>, body: ListBody): string {
  for (const memory of body.memories) mirror.set(memory.id, memory);
  for (const id of body.deleted ?? []) mirror.delete(id);
  return body.cursor;
}

const byId = (items: Iterable<Item>) =>
  [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

/** Concurrent adds that must all be created (201); returns the items in order. */
async function seed(call: Client, count: number, label: string): Promise<Item[]> {
  const answers = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      call('POST', memoryPath, {
        content: `${label} ${i}`,
        ...(i % 3 === 0 ? { category: 'goal' } : {}),
      }),
    ),
  );
  return answers.map((answer, i) => {
    expect(answer.status, `seed ${i}: ${JSON.stringify(answer.body)}`).toBe(201);
    const memory = (answer.body as { memory: Item }).memory;
    expect(memory.content).toBe(`${label} ${i}`);
    return memory;
  });
}

type Op =
  | { kind: 'add'; content: string; group?: string }
  | { kind: 'patch'; id: string; content: string }
  | { kind: 'delete'; id: string };

interface Outcome {
  op: Op;
  answer: Answer;
}

/**
 * Fires `ops` concurrently in two waves; when a quarter of the first wave is acknowledged, the
 * pulls (full and incremental from `c0`) are sent and the second wave is launched. `onAck` is
 * called after every answer, and after the pulls; with `launch` it may send more ops, whose
 * outcomes are awaited and reported like the others.
 */
async function fire(
  call: Client,
  ops: Op[],
  c0: string,
  onAck: (acked: number, pullsDone: boolean, launch: (op: Op) => void) => void,
) {
  const outcomes: Outcome[] = [];
  const half = Math.ceil(ops.length / 2);
  let acked = 0;
  let pulls: Promise<[Answer, Answer]> | undefined;
  let pullsDone = false;
  const inFlight = new Set<Promise<void>>();
  const launch = (op: Op): void => {
    const request =
      op.kind === 'add'
        ? call('POST', memoryPath, { content: op.content })
        : op.kind === 'patch'
          ? call('PATCH', `${memoryPath}/${op.id}`, { content: op.content })
          : call('DELETE', `${memoryPath}/${op.id}`);
    const done = request.then((answer) => {
      outcomes.push({ op, answer });
      if (answer.status !== 0) acked++;
      if (!pulls && acked >= Math.ceil(half / 4)) {
        pulls = Promise.all([call('GET', memoryPath), call('GET', since(c0))]);
        pulls.then(() => {
          pullsDone = true;
          onAck(acked, pullsDone, launch);
        });
        for (const next of ops.slice(half)) launch(next);
      }
      onAck(acked, pullsDone, launch);
    });
    inFlight.add(done);
    done.finally(() => inFlight.delete(done));
  };
  for (const op of ops.slice(0, half)) launch(op);
  // Until every op, whenever it was launched, has its outcome.
  while (inFlight.size > 0) await Promise.all([...inFlight]);
  if (!pulls) throw new Error('too few writes of the first wave were acknowledged to go on');
  const [full, incremental] = await pulls;
  return { outcomes, full, incremental };
}

describe('SIGKILL', () => {
  test('right after the last acknowledgement: every acknowledged write survives a restart, and cursors taken before still serve the changes', async () => {
    const url = await tempDatabase();
    let server = await startServer(url);
    const demo = await readDemo(server);
    let call = client(server.url, demo);

    const c0 = (await fullList(call)).cursor;
    const seeds = await seed(call, 80, 'seed');

    // One batch of 200 writes: new memories, groups of equal saves that must fold into one,
    // patches (ten ids patched twice, racing), deletes (ten ids deleted twice, racing).
    const ops: Op[] = [];
    for (let i = 0; i < 98; i++) ops.push({ kind: 'add', content: `new ${i}` });
    for (let g = 0; g < 4; g++) {
      for (const variant of [`Fold ${g}`, `fold ${g}.`, ` FOLD   ${g}!`])
        ops.push({ kind: 'add', content: variant, group: `fold ${g}` });
    }
    for (let i = 0; i < 40; i++) {
      const id = (seeds[i] as Item).id;
      ops.push({ kind: 'patch', id, content: `patched ${i}` });
      if (i < 10) ops.push({ kind: 'patch', id, content: `patched again ${i}` });
    }
    for (let i = 40; i < 70; i++) {
      const id = (seeds[i] as Item).id;
      ops.push({ kind: 'delete', id });
      if (i < 50) ops.push({ kind: 'delete', id });
    }
    expect(ops).toHaveLength(200);
    shuffle(ops);

    const total = ops.length;
    let killed: Promise<unknown> | undefined;
    const { outcomes, full, incremental } = await fire(call, ops, c0, (acked, pullsDone) => {
      // SIGKILL in the same turn as the last acknowledgement: no graceful close.
      if (acked === total && pullsDone && !killed) killed = server.kill();
    });
    expect(killed).toBeDefined();
    expect(await killed).toEqual({ code: null, signal: 'SIGKILL' });

    // Every write was acknowledged, with the exact answer.
    expect(outcomes).toHaveLength(total);
    const patchesOf = new Map<string, Item[]>();
    const deletedIds = new Set<string>();
    const created: Item[] = [];
    const foldIds = new Map<string, Set<string>>();
    for (const { op, answer } of outcomes) {
      const what = `${JSON.stringify(op)} → ${answer.status} ${JSON.stringify(answer.body)}`;
      if (op.kind === 'add') {
        const memory = (answer.body as { memory: Item }).memory;
        if (op.group === undefined) {
          expect(answer.status, what).toBe(201);
          expect(memory.content, what).toBe(op.content);
          created.push(memory);
        } else {
          expect([200, 201], what).toContain(answer.status);
          if (answer.status === 201) created.push(memory);
          const ids = foldIds.get(op.group) ?? new Set<string>();
          ids.add(memory.id);
          foldIds.set(op.group, ids);
        }
      } else if (op.kind === 'patch') {
        expect(answer.status, what).toBe(200);
        const memory = (answer.body as { memory: Item }).memory;
        expect(memory.content, what).toBe(op.content);
        patchesOf.set(op.id, [...(patchesOf.get(op.id) ?? []), memory]);
      } else {
        expect(answer.status, what).toBe(200);
        expect(answer.body, what).toEqual({ ok: true });
        deletedIds.add(op.id);
      }
    }
    // Concurrent equal saves leave exactly one memory per group.
    for (const [group, ids] of foldIds) expect(ids.size, group).toBe(1);
    expect(created.filter((m) => /fold/i.test(m.content))).toHaveLength(4);
    expect(full.status).toBe(200);
    expect(incremental.status).toBe(200);

    server = await startServer(url, server.port);
    call = client(server.url, demo);
    const after = await fullList(call);
    const final = new Map(after.memories.map((m) => [m.id, m]));

    // The expected store, from the acknowledgements alone.
    const expected = new Map<string, Item>();
    for (const memory of [...seeds, ...created]) expected.set(memory.id, memory);
    for (const [id, patches] of patchesOf) {
      // Racing patches: the one that committed last has the greatest updatedAt; it wins.
      const last = patches.reduce((a, b) => (b.updatedAt > a.updatedAt ? b : a));
      expect(new Set(patches.map((p) => p.updatedAt)).size, id).toBe(patches.length);
      expected.set(id, last);
    }
    for (const id of deletedIds) expected.delete(id);
    expect(byId(final.values())).toEqual(byId(expected.values()));

    // Old cursors are still valid and lead every mirror to the same store.
    const fromStart = await call('GET', since(c0));
    expect(fromStart.status).toBe(200);
    const startBody = fromStart.body as ListBody;
    expect(byId(startBody.memories)).toEqual(byId(expected.values()));
    expect(new Set(startBody.deleted)).toEqual(deletedIds);

    const fullBody = full.body as ListBody;
    const fullMirror = new Map(fullBody.memories.map((m) => [m.id, m]));
    const fromFull = await call('GET', since(fullBody.cursor));
    expect(fromFull.status).toBe(200);
    const fromFullBody = fromFull.body as ListBody;
    for (const id of deletedIds) {
      if (fullMirror.has(id)) expect(fromFullBody.deleted, `deleted ${id}`).toContain(id);
    }
    applyPull(fullMirror, fromFullBody);
    expect(byId(fullMirror.values())).toEqual(byId(expected.values()));

    const incrementalBody = incremental.body as ListBody;
    expect(incrementalBody.deleted).toBeDefined();
    const incrementalMirror = new Map<string, Item>();
    applyPull(incrementalMirror, incrementalBody);
    const fromIncremental = await call('GET', since(incrementalBody.cursor));
    expect(fromIncremental.status).toBe(200);
    applyPull(incrementalMirror, fromIncremental.body as ListBody);
    expect(byId(incrementalMirror.values())).toEqual(byId(expected.values()));
  });

  test('with writes in flight: every acknowledged write survives; an unacknowledged one is all or nothing', async () => {
    const url = await tempDatabase();
    let server = await startServer(url);
    const demo = await readDemo(server);
    let call = client(server.url, demo);

    const c0 = (await fullList(call)).cursor;
    const seeds = await seed(call, 70, 'seed');
    // Each seed gets at most one write, so every outcome is exact.
    const ops: Op[] = [];
    for (let i = 0; i < 80; i++) ops.push({ kind: 'add', content: `new ${i}` });
    for (let i = 0; i < 40; i++) {
      ops.push({ kind: 'patch', id: (seeds[i] as Item).id, content: `patched ${i}` });
    }
    for (let i = 40; i < 60; i++) ops.push({ kind: 'delete', id: (seeds[i] as Item).id });
    shuffle(ops);

    // Sent as the process is killed: an add is answered only after an fsync, so these are
    // certainly in flight when it dies, however fast the others were.
    const finale: Op[] = Array.from({ length: 20 }, (_, i) => ({
      kind: 'add',
      content: `last ${i}`,
    }));
    ops.push(...finale);
    let killed: Promise<unknown> | undefined;
    const { outcomes, full, incremental } = await fire(
      call,
      ops.filter((op) => !finale.includes(op)),
      c0,
      (acked, pullsDone, launch) => {
        if (acked < 70 || !pullsDone || killed) return;
        for (const op of finale) launch(op);
        killed = new Promise((resolve) => setImmediate(resolve)).then(() => server.kill());
      },
    );
    expect(killed).toBeDefined();
    expect(await killed).toEqual({ code: null, signal: 'SIGKILL' });
    expect(outcomes).toHaveLength(ops.length);
    // The premise: some writes were still in flight when the process died.
    expect(outcomes.filter((o) => o.answer.status === 0).length).toBeGreaterThan(0);
    expect(full.status).toBe(200);
    expect(incremental.status).toBe(200);

    server = await startServer(url, server.port);
    call = client(server.url, demo);
    const after = await fullList(call);
    const final = new Map(after.memories.map((m) => [m.id, m]));
    const byContent = new Map<string, Item[]>();
    for (const m of after.memories)
      byContent.set(m.content, [...(byContent.get(m.content) ?? []), m]);

    const accounted = new Set<string>();
    for (const { op, answer } of outcomes) {
      const what = `${JSON.stringify(op)} → ${answer.status} ${JSON.stringify(answer.body)}`;
      const acknowledged = answer.status !== 0;
      if (op.kind === 'add') {
        const found = byContent.get(op.content) ?? [];
        expect(found.length, what).toBeLessThanOrEqual(1);
        if (acknowledged) {
          expect(answer.status, what).toBe(201);
          expect(found, what).toEqual([(answer.body as { memory: Item }).memory]);
        }
        for (const m of found) accounted.add(m.id);
        continue;
      }
      const index = seeds.findIndex((s) => s.id === op.id);
      const original = seeds[index] as Item;
      const now = final.get(op.id);
      accounted.add(op.id);
      if (op.kind === 'patch') {
        if (acknowledged) {
          expect(answer.status, what).toBe(200);
          expect(now, what).toEqual((answer.body as { memory: Item }).memory);
        } else {
          // Not acknowledged: the patch happened entirely or not at all.
          expect(now, what).toBeDefined();
          if ((now as Item).content === original.content) expect(now, what).toEqual(original);
          else expect((now as Item).content, what).toBe(op.content);
        }
      } else if (acknowledged) {
        expect(answer.status, what).toBe(200);
        expect(now, what).toBeUndefined();
      } else if (now !== undefined) {
        expect(now, what).toEqual(original);
      }
    }
    // Untouched seeds are exactly as they were; nothing else is in the store.
    for (const original of seeds.slice(60)) {
      expect(final.get(original.id)).toEqual(original);
      accounted.add(original.id);
    }
    for (const id of final.keys()) expect(accounted, `unexpected memory ${id}`).toContain(id);

    // Cursors from before the kill still serve, and lead to the same store.
    const mirrors: Array<[Map<string, Item>, string]> = [];
    const fullBody = full.body as ListBody;
    mirrors.push([new Map(fullBody.memories.map((m) => [m.id, m])), fullBody.cursor]);
    const incrementalMirror = new Map<string, Item>();
    mirrors.push([incrementalMirror, applyPull(incrementalMirror, incremental.body as ListBody)]);
    mirrors.push([new Map(), c0]);
    for (const [mirror, cursor] of mirrors) {
      const pull = await call('GET', since(cursor));
      expect(pull.status).toBe(200);
      applyPull(mirror, pull.body as ListBody);
      expect(byId(mirror.values())).toEqual(byId(final.values()));
    }
  });
});

describe('restart', () => {
  test('after a crash, clients that reconnect at once are all served and catch up from their old cursors', async () => {
    const url = await tempDatabase();
    let server = await startServer(url);
    const demo = await readDemo(server);
    let call = client(server.url, demo);
    const seeds = await seed(call, 30, 'seed');
    const before = await fullList(call);
    const changes = await Promise.all([
      ...seeds.slice(0, 10).map((m) => call('DELETE', `${memoryPath}/${m.id}`)),
      ...seeds
        .slice(10, 20)
        .map((m, i) => call('PATCH', `${memoryPath}/${m.id}`, { content: `p${i}` })),
      call('POST', memoryPath, { content: 'after the cursor' }),
    ]);
    expect(changes.map((a) => a.status)).toEqual([...Array(20).fill(200), 201]);
    await server.kill();

    server = await startServer(url, server.port);
    call = client(server.url, demo);
    // Sixteen clients come back at the same moment: these are the new process's first requests.
    const CLIENTS = 16;
    const pulls = await Promise.all(
      Array.from({ length: CLIENTS }, () => call('GET', since(before.cursor))),
    );
    const final = await fullList(call);
    for (const [i, pull] of pulls.entries()) {
      const label = `client ${i}: ${pull.status} ${JSON.stringify(pull.body)}`;
      expect.soft(pull.status, label).toBe(200);
      if (pull.status !== 200) continue;
      const mirror = new Map(before.memories.map((m) => [m.id, m]));
      applyPull(mirror, pull.body as ListBody);
      expect.soft(byId(mirror.values()), label).toEqual(byId(final.memories));
      expect
        .soft(new Set((pull.body as ListBody).deleted), label)
        .toEqual(new Set(seeds.slice(0, 10).map((m) => m.id)));
    }
    // With nothing in flight, SIGTERM ends the process at once, cleanly.
    expect(await server.stop('SIGTERM', 5_000)).toEqual({ code: 0, signal: null });
  });
});

describe('SIGTERM', () => {
  test('drains in-flight requests, answers only 2xx or 503, exits 0, and keeps every acknowledged write', async () => {
    const url = await tempDatabase();
    let server = await startServer(url);
    const demo = await readDemo(server);
    let call = client(server.url, demo);
    await fullList(call);

    const WORKERS = 32;
    const MAX_PER_WORKER = 200;
    const SIGNAL_AFTER = 150;
    const DRAIN_LIMIT_MS = 15_000;
    const answers: Array<{ what: string; answer: Answer }> = [];
    const acknowledgedAdds = new Map<string, Item>();
    const acknowledgedPatches = new Map<string, Item>();
    const unacknowledgedPatches = new Map<string, string>();
    let okCount = 0;
    let inFlight = 0;
    let inFlightAtSignal = -1;
    let signalledAt = 0;

    // Each worker adds a memory, then patches it, and so on, until the server stops answering.
    const worker = async (w: number) => {
      let last: Item | undefined;
      for (let n = 0; n < MAX_PER_WORKER; n++) {
        const patch = last !== undefined && n % 2 === 1;
        const content = patch ? `w${w} patched ${n}` : `w${w} add ${n}`;
        inFlight++;
        const answer = patch
          ? await call('PATCH', `${memoryPath}/${(last as Item).id}`, { content })
          : await call('POST', memoryPath, { content });
        inFlight--;
        answers.push({ what: `${patch ? 'PATCH' : 'POST'} ${content}`, answer });
        if (patch && answer.status === 0) unacknowledgedPatches.set((last as Item).id, content);
        if (answer.status !== 200 && answer.status !== 201) return;
        okCount++;
        const memory = (answer.body as { memory: Item }).memory;
        if (patch) acknowledgedPatches.set(memory.id, memory);
        else acknowledgedAdds.set(memory.id, memory);
        last = memory;
        if (okCount >= SIGNAL_AFTER && signalledAt === 0) {
          signalledAt = Date.now();
          inFlightAtSignal = inFlight;
          process.kill(server.pid, 'SIGTERM');
        }
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
    expect(signalledAt).toBeGreaterThan(0);
    expect(inFlightAtSignal).toBeGreaterThan(0);

    let timer: NodeJS.Timeout | undefined;
    const exit = await Promise.race([
      server.exited,
      new Promise((resolve) => {
        timer = setTimeout(
          () => resolve(`still running ${Date.now() - signalledAt} ms after SIGTERM`),
          Math.max(0, signalledAt + DRAIN_LIMIT_MS - Date.now()),
        );
      }),
    ]);
    clearTimeout(timer);
    // Soft: the checks below still run (and report) when the drain is too slow.
    expect.soft(exit, 'the process exits 0 once in-flight requests are drained').toEqual({
      code: 0,
      signal: null,
    });
    if (!server.hasExited()) await server.kill();

    // Every answer that arrived is a well-formed one.
    for (const { what, answer } of answers) {
      if (answer.status === 0) continue;
      const label = `${what} → ${answer.status} ${JSON.stringify(answer.body)}`;
      expect.soft([200, 201, 503], label).toContain(answer.status);
      // The spec: all responses carry Cache-Control: no-store.
      expect.soft(answer.headers?.get('cache-control'), label).toBe('no-store');
      if (answer.status === 503) {
        expect.soft(answer.body, label).toMatchObject({ error: expect.any(String) });
      } else if (answer.status === 200 || answer.status === 201) {
        const memory = (answer.body as { memory: Item }).memory;
        expect.soft(memory.content, label).toBe(what.slice(what.indexOf(' ') + 1));
        expect
          .soft(Object.keys(memory).sort(), label)
          .toEqual(['content', 'createdAt', 'id', 'updatedAt']);
      }
    }

    server = await startServer(url, server.port);
    call = client(server.url, demo);
    const final = new Map((await fullList(call)).memories.map((m) => [m.id, m]));
    expect(acknowledgedAdds.size).toBeGreaterThanOrEqual(SIGNAL_AFTER / 2);
    for (const [id, added] of acknowledgedAdds) {
      const now = final.get(id);
      const patched = acknowledgedPatches.get(id);
      const unacknowledged = unacknowledgedPatches.get(id);
      // Each memory gets at most one patch, from the worker that added it.
      if (patched !== undefined)
        expect(now, `acknowledged patch ${patched.content}`).toEqual(patched);
      else if (unacknowledged !== undefined && now?.content === unacknowledged) {
        expect(now.createdAt).toBe(added.createdAt);
        expect(now.updatedAt > added.updatedAt).toBe(true);
      } else expect(now, `acknowledged add ${added.content}`).toEqual(added);
    }
    // Nothing but what the workers sent is in the store.
    const sent = new Set(answers.map(({ what }) => what.slice(what.indexOf(' ') + 1)));
    for (const memory of final.values()) expect(sent).toContain(memory.content);
  });
});
