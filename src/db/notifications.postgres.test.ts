/**
 * LISTEN/NOTIFY as the change streams use it: a notification reaches every listener of the
 * channel, the sender's own process included; when the listening connection is cut (its backend
 * terminated, as a server restart or a failover would), it is opened again, listens again, tells
 * its listeners of the gap, and notifications arrive again.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestStore, type TestStore } from '../testing/test-store.ts';
import { createPostgresNotifications, type Notifications } from './notifications.ts';

let store: TestStore;
let sender: pg.Pool;
let notifications: Notifications;

beforeAll(async () => {
  store = await createTestStore('postgres');
  sender = new pg.Pool({ connectionString: store.url, max: 2 });
  notifications = createPostgresNotifications(
    { connectionString: store.url, application_name: 'mnemo-listener-test' },
    async (channel, payload) => {
      await sender.query('select pg_notify($1, $2)', [channel, payload]);
    },
  );
});
afterAll(async () => {
  await notifications?.close();
  await sender?.end();
  await store?.dispose();
});

/** Resolves with the next value `push` is given, or rejects after `ms`. */
function nextOf<T>(ms = 5_000) {
  let push: (value: T) => void = () => {};
  const next = new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`nothing within ${ms} ms`)), ms);
    push = (value) => {
      clearTimeout(timer);
      resolve(value);
    };
  });
  return { next, push: (value: T) => push(value) };
}

test('a notification reaches the listeners of its channel, and only them', async () => {
  const a = nextOf<string>();
  const other: string[] = [];
  const stopA = await notifications.listen(
    'chan_a',
    (payload) => a.push(payload),
    () => {},
  );
  const stopB = await notifications.listen(
    'chan_b',
    (payload) => other.push(payload),
    () => {},
  );
  await notifications.notify('chan_a', 'store-1 store-2');
  expect(await a.next).toBe('store-1 store-2');
  expect(other).toEqual([]);
  stopA();
  stopB();
});

test('the listening connection cut: opened again, listening again, the gap told; notifications arrive again', async () => {
  const gap = nextOf<void>(15_000);
  const received: string[] = [];
  const stop = await notifications.listen(
    'chan_c',
    (payload) => received.push(payload),
    () => gap.push(),
  );
  const { rowCount } = await sender.query(
    `select pg_terminate_backend(pid) from pg_stat_activity
      where application_name = 'mnemo-listener-test' and datname = current_database()`,
  );
  expect(rowCount).toBe(1);
  await gap.next;
  const after = nextOf<string>();
  const stopAfter = await notifications.listen(
    'chan_c',
    (payload) => after.push(payload),
    () => {},
  );
  await notifications.notify('chan_c', 'after the cut');
  expect(await after.next).toBe('after the cut');
  expect(received).toEqual(['after the cut']);
  stop();
  stopAfter();
});
