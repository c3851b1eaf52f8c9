/**
 * Holds change streams open for the events part of the bench (run-events.ts): a process of its
 * own, started by `startStreamHolder` on the servers' CPUs (cpu-placement.ts), never on the
 * load generator's, so that holding them takes nothing from the load. Every stream goes through
 * one undici Agent (a connection each), its bytes read and thrown away.
 *
 * Over its IPC channel it says `ready`, then answers each `HolderCommand` with a `HolderReply`;
 * it ends when its parent does (the channel closes).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { placed } from '../cpu-placement.ts';

/** A credential the streams are opened with, each account's as many times as asked. */
export interface HolderAccount {
  readonly token: string;
  readonly orgId: string;
}

export type HolderCommand =
  | {
      readonly op: 'open';
      readonly origin: string;
      readonly accounts: readonly HolderAccount[];
      readonly perAccount: number;
    }
  | { readonly op: 'close' };

export type HolderReply =
  | { readonly ok: true; readonly op: 'open'; readonly streams: number; readonly seconds: number }
  /** `ended`: streams that ended before the close (the server cut them): none should. */
  | { readonly ok: true; readonly op: 'close'; readonly ended: number; readonly bytes: number }
  | { readonly ok: false; readonly message: string };

export const HOLDER_READY = 'ready';

/** Streams being opened at once: enough to open 1,000 in a second or two. */
const OPENING_AT_ONCE = 50;
/** How long one stream may take to answer and send its first `sync`. */
const OPEN_TIMEOUT_MS = 30_000;

interface Held {
  agent: Agent;
  streams: number;
  ended: number;
  bytes: number;
  closing: boolean;
}

let held: Held | undefined;

/** Opens one stream and resolves once its first `sync` came: it is then followed by the server. */
async function openOne(state: Held, origin: string, account: HolderAccount): Promise<void> {
  const response = await request(`${origin}/api/v1/memory/events`, {
    dispatcher: state.agent,
    headers: {
      authorization: `Bearer ${account.token}`,
      'x-organization-id': account.orgId,
      accept: 'text/event-stream',
    },
  });
  if (response.statusCode !== 200) {
    const text = await response.body.text();
    throw new Error(`GET /api/v1/memory/events: ${response.statusCode} ${text.slice(0, 300)}`);
  }
  const { body } = response;
  await new Promise<void>((resolve, reject) => {
    let synced = false;
    let head = '';
    const timer = setTimeout(() => {
      if (!synced) reject(new Error(`no first sync within ${OPEN_TIMEOUT_MS} ms`));
    }, OPEN_TIMEOUT_MS);
    body.on('data', (chunk: Buffer) => {
      state.bytes += chunk.length;
      if (synced) return;
      // The first event may come in pieces: its text is kept until the first sync is whole.
      head += chunk.toString('utf8');
      if (/^event: sync$/m.test(head) && head.includes('\n\n')) {
        synced = true;
        head = '';
        clearTimeout(timer);
        resolve();
      }
    });
    const end = () => {
      if (!state.closing) state.ended += 1;
      if (!synced) {
        clearTimeout(timer);
        reject(new Error('the stream ended before its first sync'));
      }
    };
    body.once('end', end);
    body.once('error', end);
  });
}

async function open(command: Extract<HolderCommand, { op: 'open' }>): Promise<HolderReply> {
  if (held) throw new Error('streams are already held: close them first');
  const total = command.accounts.length * command.perAccount;
  const state: Held = {
    agent: new Agent({
      connections: total,
      bodyTimeout: 0,
      headersTimeout: OPEN_TIMEOUT_MS,
      keepAliveTimeout: 1_000,
    }),
    streams: 0,
    ended: 0,
    bytes: 0,
    closing: false,
  };
  held = state;
  const queue = command.accounts.flatMap((account) =>
    Array.from({ length: command.perAccount }, () => account),
  );
  const started = performance.now();
  const worker = async () => {
    for (let account = queue.shift(); account; account = queue.shift()) {
      await openOne(state, command.origin, account);
      state.streams += 1;
    }
  };
  await Promise.all(Array.from({ length: OPENING_AT_ONCE }, worker));
  return {
    ok: true,
    op: 'open',
    streams: state.streams,
    seconds: (performance.now() - started) / 1000,
  };
}

async function close(): Promise<HolderReply> {
  const state = held;
  held = undefined;
  if (!state) return { ok: true, op: 'close', ended: 0, bytes: 0 };
  const { ended, bytes } = state;
  state.closing = true;
  await state.agent.destroy();
  return { ok: true, op: 'close', ended, bytes };
}

async function answer(command: HolderCommand): Promise<HolderReply> {
  try {
    return command.op === 'open' ? await open(command) : await close();
  } catch (error) {
    // Whatever was opened goes: the next command starts from nothing.
    await close().catch(() => undefined);
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

/** Starting Node, on a machine busy with other work. */
const READY_TIMEOUT_MS = 30_000;
/** Opening or closing every stream, at most. */
const REPLY_TIMEOUT_MS = 120_000;

/** The holding process, as the bench drives it. */
export interface StreamHolder {
  readonly pid: number;
  /** Opens `perAccount` streams with each of `accounts`: how many, and how long it took. */
  open(
    origin: string,
    accounts: readonly HolderAccount[],
    perAccount: number,
  ): Promise<{ streams: number; seconds: number }>;
  /** Closes every stream held: how many had ended before (none should), and the bytes read. */
  close(): Promise<{ ended: number; bytes: number }>;
  /** Ends the process, and with it any stream it still holds. */
  stop(): void;
}

/** What `child` says next, or a rejection when it ends or says nothing within `timeoutMs`. */
function reply(child: ChildProcess, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const settle = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    const timer = setTimeout(() => {
      settle();
      reject(new Error(`stream holder: no answer within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    const onMessage = (message: unknown) => {
      settle();
      resolve(message);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      settle();
      reject(new Error(`stream holder: its process ended (${signal ?? `code ${code}`})`));
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/** Starts the holding process on the servers' CPUs and waits until it listens. */
export async function startStreamHolder(): Promise<StreamHolder> {
  const [command, ...args] = placed('server', [process.execPath, fileURLToPath(import.meta.url)]);
  if (command === undefined) throw new Error('empty command');
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  child.once('exit', () => process.removeListener('exit', kill));
  const ready = await reply(child, READY_TIMEOUT_MS).catch((error: unknown) => {
    kill();
    throw error;
  });
  if (ready !== HOLDER_READY) {
    kill();
    throw new Error(`stream holder: said ${JSON.stringify(ready)} on starting`);
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error('stream holder: no pid');
  const ask = async (command: HolderCommand) => {
    const answer = reply(child, REPLY_TIMEOUT_MS);
    child.send(command);
    const got = (await answer) as HolderReply;
    if (!got.ok) throw new Error(`stream holder: ${got.message}`);
    return got;
  };
  return {
    pid,
    async open(origin, accounts, perAccount) {
      const got = await ask({ op: 'open', origin, accounts, perAccount });
      if (got.op !== 'open') throw new Error('stream holder: answered another command');
      return { streams: got.streams, seconds: got.seconds };
    },
    async close() {
      const got = await ask({ op: 'close' });
      if (got.op !== 'close') throw new Error('stream holder: answered another command');
      return { ended: got.ended, bytes: got.bytes };
    },
    stop() {
      // Its channel closing ends it; the exit hook kills it if it has not ended by then.
      if (child.connected) child.disconnect();
    },
  };
}

if (import.meta.main) {
  if (!process.send) throw new Error('hold-streams.ts runs with an IPC channel (run-events.ts)');
  process.on('message', (command: HolderCommand) => {
    void answer(command).then((reply) => process.send?.(reply));
  });
  process.on('disconnect', () => process.exit(0));
  process.send(HOLDER_READY);
}
