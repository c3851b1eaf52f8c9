import { EventEmitter } from 'node:events';
import pg from 'pg';

/**
 * Wake-ups between the processes that share a store: PostgreSQL's LISTEN/NOTIFY; on SQLite,
 * within this process (one server process writes a SQLite store). A message is a hint that
 * something changed, never the change itself: it may be lost (a listening connection that
 * broke), so whoever acts on one reads the store for the truth, and is told of every gap
 * (`onGap`) after which messages may have been missed.
 */
export interface Notifications {
  /** Sends `payload` (at most 7,900 bytes) on `channel` to every listener, this process's too. */
  notify(channel: string, payload: string): Promise<void>;
  /**
   * Calls `onMessage` with each payload sent on `channel` from now on, and `onGap` whenever
   * messages may have been missed since (the listening connection was lost and is back).
   * Resolves once listening; the function it gives stops it.
   */
  listen(
    channel: string,
    onMessage: (payload: string) => void,
    onGap: () => void,
  ): Promise<() => void>;
  close(): Promise<void>;
}

/** PostgreSQL's limit on a NOTIFY payload is 8,000 bytes; a little is kept spare. */
export const MAX_PAYLOAD_BYTES = 7900;

/** Within one process: what SQLite has, one writing process to a store. */
export function createLocalNotifications(): Notifications {
  const emitter = new EventEmitter();
  // Every open stream listens: as many listeners as streams, which is no leak.
  emitter.setMaxListeners(0);
  return {
    async notify(channel, payload) {
      emitter.emit(channel, payload);
    },
    async listen(channel, onMessage) {
      emitter.on(channel, onMessage);
      return () => emitter.off(channel, onMessage);
    },
    async close() {
      emitter.removeAllListeners();
    },
  };
}

/** Waits before listening again after the connection broke: doubled each time, up to 10 s. */
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 10_000;

/**
 * LISTEN/NOTIFY: a notification is sent through the pool, and received on one connection of
 * its own (a pooled one would be given to other work between notifications), opened at the
 * first `listen` and opened again, with every channel listened to again, when it breaks; each
 * time it comes back, the listeners are told of the gap.
 */
export function createPostgresNotifications(
  settings: pg.ClientConfig,
  send: (channel: string, payload: string) => Promise<void>,
): Notifications {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const gaps = new EventEmitter();
  gaps.setMaxListeners(0);
  const channels = new Map<string, number>();
  let client: pg.Client | undefined;
  let connecting: Promise<pg.Client> | undefined;
  let closed = false;
  let retryMs = FIRST_RETRY_MS;

  async function connect(): Promise<pg.Client> {
    const fresh = new pg.Client(settings);
    fresh.on('notification', ({ channel, payload }) => emitter.emit(channel, payload ?? ''));
    // A broken connection emits 'error' (and 'end'): listen again on a new one.
    fresh.on('error', () => lost(fresh));
    fresh.on('end', () => lost(fresh));
    await fresh.connect();
    for (const channel of channels.keys()) await fresh.query(`listen ${quoted(channel)}`);
    retryMs = FIRST_RETRY_MS;
    return fresh;
  }

  function connection(): Promise<pg.Client> {
    if (client) return Promise.resolve(client);
    connecting ??= connect().then(
      (opened) => {
        client = opened;
        connecting = undefined;
        return opened;
      },
      (error: unknown) => {
        connecting = undefined;
        throw error;
      },
    );
    return connecting;
  }

  function lost(broken: pg.Client) {
    if (client !== broken) return;
    client = undefined;
    broken.end().catch(() => undefined);
    if (!closed) reconnectLater();
  }

  function reconnectLater() {
    const wait = retryMs;
    retryMs = Math.min(MAX_RETRY_MS, retryMs * 2);
    setTimeout(() => {
      if (closed || channels.size === 0) return;
      connection().then(
        () => gaps.emit('gap'),
        () => reconnectLater(),
      );
    }, wait).unref();
  }

  return {
    notify: send,
    async listen(channel, onMessage, onGap) {
      const first = !channels.has(channel);
      channels.set(channel, (channels.get(channel) ?? 0) + 1);
      emitter.on(channel, onMessage);
      gaps.on('gap', onGap);
      const stop = () => {
        emitter.off(channel, onMessage);
        gaps.off('gap', onGap);
        const left = (channels.get(channel) ?? 1) - 1;
        if (left > 0) channels.set(channel, left);
        else channels.delete(channel);
      };
      try {
        const listening = await connection();
        // Listening twice is no error: a connection opened meanwhile may have listened already.
        if (first) await listening.query(`listen ${quoted(channel)}`);
      } catch (error) {
        stop();
        throw error;
      }
      return stop;
    },
    async close() {
      closed = true;
      emitter.removeAllListeners();
      gaps.removeAllListeners();
      const open = client ?? (await connecting?.catch(() => undefined));
      client = undefined;
      await open?.end().catch(() => undefined);
    },
  };
}

/** A channel name as an SQL identifier: LISTEN takes no parameter. */
function quoted(channel: string): string {
  return `"${channel.replaceAll('"', '""')}"`;
}
