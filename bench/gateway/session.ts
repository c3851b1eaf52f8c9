import { randomBytes } from 'node:crypto';
import { measure } from '../load.ts';
import { measureWithCpu } from './measured-run.ts';
import { runMemoryRead } from './memory-read.ts';
import {
  type GatewayProcess,
  MNEMO_MODEL,
  MNEMO_PACED_MODEL,
  type StartOptions,
  startMnemo,
  startPortkey,
  startSimulator,
  UPSTREAM_MODEL,
} from './processes.ts';
import {
  attempt,
  CONNECTIONS,
  type FirstChunk,
  type GatewayResults,
  type LoadRun,
  messageOf,
  type Pacing,
  type Result,
  type TargetName,
} from './results.ts';
import { percentileOf, type StreamSummary } from './sse-arrivals.ts';
import { chatBody, type Endpoint, streamInSequence } from './stream-client.ts';

export interface GatewayOptions {
  /** Seconds of each measured non-streaming run. */
  readonly seconds: number;
  /** Seconds of the run before it, not reported; 0 for none. */
  readonly warmup: number;
  /** Temp folder for mnemo's store and catalog; removed by the caller. */
  readonly dir: string;
  readonly profileDir: string | undefined;
  readonly log: (line: string) => void;
}

/** What every request asks; the simulator answers `You said: ` and the prompt, a word a chunk. */
const PROMPT =
  'Summarise the notes of the planning meeting: the launch moves to March, the budget stays, two hires wait for the next quarter.';
const ANSWER = `You said: ${PROMPT}`;
const PATH = '/v1/chat/completions';

/** The paced simulator's pause between chunks. */
export const CHUNK_DELAY_MS = 2;
export const FIRST_CHUNK_WARMUP = 50;
export const FIRST_CHUNK_REQUESTS = 300;
export const PACED_REQUESTS = 40;

/** A target ready for load, or why it is not. */
type Prepared =
  | {
      readonly name: TargetName;
      readonly fast: Endpoint;
      readonly paced: Endpoint;
      readonly gateway: GatewayProcess | undefined;
      /** mnemo's: as the member whose store holds `RECALL_MEMORIES` memories. */
      readonly recall?: Endpoint;
    }
  | { readonly name: TargetName; readonly failure: string };

type Ready = Exclude<Prepared, { failure: string }>;

function checkStream(summary: StreamSummary, what: string): void {
  if (summary.text !== ANSWER || !summary.done) {
    throw new Error(`${what}: the stream is not the simulator's (${summary.text.slice(0, 80)}…)`);
  }
}

/** Both ways of asking answer what the simulator answers, streamed or not, before any load. */
async function check(target: Ready): Promise<void> {
  const { fast, paced } = target;
  const response = await fetch(`${fast.origin}${fast.path}`, {
    method: 'POST',
    headers: { ...fast.headers, 'content-type': 'application/json' },
    body: chatBody(fast.model, PROMPT, false),
  });
  const text = await response.text();
  const body = JSON.parse(text || '{}') as {
    object?: string;
    choices?: Array<{ message?: { content?: string } }>;
  };
  if (
    response.status !== 200 ||
    body.object !== 'chat.completion' ||
    body.choices?.[0]?.message?.content !== ANSWER
  ) {
    throw new Error(`${target.name}: POST ${fast.path}: ${response.status} ${text.slice(0, 300)}`);
  }
  for (const endpoint of [fast, paced]) {
    for (const summary of await streamInSequence(endpoint, PROMPT, 1)) {
      checkStream(summary, target.name);
    }
  }
}

async function loadRun(
  target: Prepared,
  connections: number,
  simulator: GatewayProcess,
  options: GatewayOptions,
): Promise<LoadRun['result']> {
  if ('failure' in target) return { ok: false, message: target.failure };
  const { fast, gateway } = target;
  const load = (seconds: number) => ({
    origin: fast.origin,
    requests: [
      {
        method: 'POST',
        path: fast.path,
        headers: { ...fast.headers, 'content-type': 'application/json' },
        body: chatBody(fast.model, PROMPT, false),
      },
    ],
    expectStatus: 200,
    connections,
    seconds,
  });
  return attempt(async () => {
    const log = (what: string) =>
      options.log(`gateway: ${target.name}, ${connections} connection(s): ${what}`);
    if (options.warmup > 0) {
      log(`warm-up ${options.warmup} s`);
      await measure(load(options.warmup));
    }
    log(`measuring ${options.seconds} s`);
    return measureWithCpu(load(options.seconds), gateway, simulator);
  });
}

function firstChunk(target: Prepared, log: (line: string) => void): Promise<Result<FirstChunk>> {
  return attempt(async () => {
    if ('failure' in target) throw new Error(target.failure);
    log(`gateway: ${target.name}: ${FIRST_CHUNK_REQUESTS} streamed requests, one at a time`);
    await streamInSequence(target.fast, PROMPT, FIRST_CHUNK_WARMUP);
    const summaries = await streamInSequence(target.fast, PROMPT, FIRST_CHUNK_REQUESTS);
    for (const summary of summaries) checkStream(summary, target.name);
    const times = summaries.map((s) => s.firstEventMs);
    return { requests: times.length, p50: percentileOf(times, 50), p99: percentileOf(times, 99) };
  });
}

function pacing(target: Prepared, log: (line: string) => void): Promise<Result<Pacing>> {
  return attempt(async () => {
    if ('failure' in target) throw new Error(target.failure);
    log(
      `gateway: ${target.name}: ${PACED_REQUESTS} streams with ${CHUNK_DELAY_MS} ms between chunks`,
    );
    const summaries = await streamInSequence(target.paced, PROMPT, PACED_REQUESTS);
    for (const summary of summaries) checkStream(summary, target.name);
    const events = new Set(summaries.map((s) => s.events));
    const [eventsPerRequest] = events;
    if (events.size !== 1 || eventsPerRequest === undefined) {
      throw new Error(`${target.name}: responses with ${[...events].join(', ')} events`);
    }
    const gaps = summaries.flatMap((s) => s.gapsMs);
    return {
      requests: summaries.length,
      eventsPerRequest,
      readsPerRequest: summaries.reduce((sum, s) => sum + s.reads, 0) / summaries.length,
      gapP50: percentileOf(gaps, 50),
      gapP99: percentileOf(gaps, 99),
    };
  });
}

const endpoint = (origin: string, headers: Record<string, string>, model: string): Endpoint => ({
  origin,
  path: PATH,
  headers,
  model,
});

/**
 * The three ways to the simulators: directly, through mnemo, through Portkey. Starts the two
 * gateways (pushing each process on `running`); one that does not start is a target that failed.
 */
async function startTargets(
  simulators: { readonly fast: string; readonly paced: string },
  key: string,
  running: GatewayProcess[],
  options: GatewayOptions,
): Promise<Prepared[]> {
  const profile: StartOptions = { profileDir: options.profileDir };
  const upstream = { authorization: `Bearer ${key}` };
  const targets: Prepared[] = [
    {
      name: 'direct',
      gateway: undefined,
      fast: endpoint(new URL(simulators.fast).origin, upstream, UPSTREAM_MODEL),
      paced: endpoint(new URL(simulators.paced).origin, upstream, UPSTREAM_MODEL),
    },
  ];

  const mnemo = await attempt(() => startMnemo(simulators, key, options.dir, profile));
  if (mnemo.ok) {
    const { origin, apiKey, recallKey, process: gateway } = mnemo.value;
    running.push(gateway);
    const headers = { authorization: `Bearer ${apiKey}` };
    targets.push({
      name: 'mnemo',
      gateway,
      fast: endpoint(origin, headers, MNEMO_MODEL),
      paced: endpoint(origin, headers, MNEMO_PACED_MODEL),
      recall: endpoint(origin, { authorization: `Bearer ${recallKey}` }, MNEMO_MODEL),
    });
  } else targets.push({ name: 'mnemo', failure: `start: ${mnemo.message}` });

  const portkey = await attempt(() => startPortkey(profile, options.log));
  if (portkey.ok) {
    const { origin, process: gateway } = portkey.value;
    running.push(gateway);
    const headers = (baseUrl: string) => ({
      ...upstream,
      'x-portkey-provider': 'openai',
      'x-portkey-custom-host': baseUrl,
    });
    targets.push({
      name: 'portkey',
      gateway,
      fast: endpoint(origin, headers(simulators.fast), UPSTREAM_MODEL),
      paced: endpoint(origin, headers(simulators.paced), UPSTREAM_MODEL),
    });
  } else targets.push({ name: 'portkey', failure: `start: ${portkey.message}` });
  return targets;
}

/**
 * Starts the simulators (one without pauses between streamed chunks, one with
 * `CHUNK_DELAY_MS`), mnemo and Portkey, each a process of its own; checks that every target
 * answers what the simulator answers; then measures, target after target: non-streaming load
 * at each of `CONNECTIONS` (the order turning around at each); mnemo's calls with memory read
 * and without (memory-read.ts); time to the first streamed chunk, and how the chunks of a
 * paced stream arrive. A target that fails is a result; every process is stopped before this
 * returns or throws.
 */
export async function runGateway(options: GatewayOptions): Promise<GatewayResults> {
  const { log } = options;
  const key = `sk-bench-${randomBytes(12).toString('hex')}`;
  const running: GatewayProcess[] = [];
  const problems: string[] = [];
  try {
    log('gateway: starting the simulators, mnemo and Portkey');
    const fast = await startSimulator('simulator', key, 0, { profileDir: options.profileDir });
    running.push(fast.process);
    const paced = await startSimulator('simulator-paced', key, CHUNK_DELAY_MS, {
      profileDir: undefined,
    });
    running.push(paced.process);
    const started = await startTargets(
      { fast: fast.baseUrl, paced: paced.baseUrl },
      key,
      running,
      options,
    );
    const targets = await Promise.all(
      started.map(async (target): Promise<Prepared> => {
        if ('failure' in target) return target;
        const checked = await attempt(() => check(target));
        return checked.ok ? target : { name: target.name, failure: `check: ${checked.message}` };
      }),
    );
    for (const target of targets) {
      if ('failure' in target) log(`gateway: ${target.name} cannot be measured: ${target.failure}`);
    }

    const load: LoadRun[] = [];
    for (const [index, connections] of CONNECTIONS.entries()) {
      const order = index % 2 === 0 ? targets : [...targets].reverse();
      for (const target of order) {
        const result = await loadRun(target, connections, fast.process, options);
        load.push({ target: target.name, connections, result });
      }
    }
    const mnemo = targets.find((target) => target.name === 'mnemo');
    const memoryRead: GatewayResults['memoryRead'] =
      mnemo === undefined || 'failure' in mnemo || mnemo.recall === undefined
        ? { ok: false, message: mnemo && 'failure' in mnemo ? mnemo.failure : 'mnemo not started' }
        : await runMemoryRead(mnemo.recall, mnemo.gateway, fast.process, options);
    const chunks = [];
    for (const target of targets) {
      chunks.push({ target: target.name, result: await firstChunk(target, log) });
    }
    const paces = [];
    for (const target of targets) {
      paces.push({ target: target.name, result: await pacing(target, log) });
    }
    return { load, memoryRead, firstChunk: chunks, pacing: paces, problems };
  } finally {
    for (const started of running.reverse()) {
      await started.stop().catch((error) => problems.push(messageOf(error)));
    }
  }
}
