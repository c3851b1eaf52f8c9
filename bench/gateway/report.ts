import { readFileSync } from 'node:fs';
import { describeLoadGenerator } from '../load.ts';
import { cores, DISTURBED, integer, markdown, ms, times, VERDICT_TEXT } from '../report.ts';
import {
  CONNECTIONS,
  firstChunkOf,
  type GatewayResults,
  type LoadCpu,
  loadOf,
  MEMORY_QUESTIONS,
  type MeasuredRun,
  memoryReadOf,
  pacingOf,
  RECALL_MEMORIES,
  TARGETS,
  type TargetName,
} from './results.ts';
import {
  CHUNK_DELAY_MS,
  FIRST_CHUNK_REQUESTS,
  FIRST_CHUNK_WARMUP,
  type GatewayOptions,
  PACED_REQUESTS,
} from './session.ts';
import type { GatewayJudgement } from './targets.ts';

function portkeyVersion(): string {
  try {
    const url = new URL('../../node_modules/@portkey-ai/gateway/package.json', import.meta.url);
    return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
  } catch {
    return '?';
  }
}

export function formatGatewayHeader(options: Pick<GatewayOptions, 'seconds' | 'warmup'>): string {
  const warmup = options.warmup > 0 ? `warm-up ${options.warmup} s, ` : 'no warm-up, ';
  return [
    'chat gateway: POST /v1/chat/completions, every target in front of the same OpenAI simulator, back to back in one run',
    'direct:    the simulator (src/testing/simulators/openai-simulator.ts), a process of its own',
    'mnemo:     bench/server.ts serve on SQLite, a catalog file with a model on the simulator, an API key made through /api/v1/api-keys',
    `portkey:   @portkey-ai/gateway ${portkeyVersion()} (start-server.js --headless, kept to 127.0.0.1), x-portkey-provider openai and the simulator as custom host`,
    `load:      ${describeLoadGenerator()}, ${CONNECTIONS.join(' then ')} connections, ${warmup}measured ${options.seconds} s per target`,
    `memory:    mnemo at 1 connection with a second key, whose owner has ${integer.format(RECALL_MEMORIES)} memories (bench/search/corpus.ts): ${MEMORY_QUESTIONS.length} questions in turn with x-mnemo-memory: read, and the same without it, ${warmup}measured ${options.seconds} s each, back to back`,
    `streams:   ${FIRST_CHUNK_REQUESTS} streamed requests one at a time after ${FIRST_CHUNK_WARMUP} unmeasured, to the first data: event; then ${PACED_REQUESTS} from a simulator that pauses ${CHUNK_DELAY_MS} ms between chunks, every socket read counted`,
  ].join('\n');
}

const COLUMNS = [
  'target',
  ...CONNECTIONS.flatMap((c) => [`${c}c req/s`, `${c}c p50 ms`, `${c}c p99 ms`]),
  'first chunk p50 ms',
  'first chunk p99 ms',
  `paced events`,
  `paced reads`,
  'gap p50 ms',
  'gap p99 ms',
];

function row(results: GatewayResults, target: TargetName): string[] {
  const load = CONNECTIONS.flatMap((c) => {
    const m = loadOf(results, target, c);
    return m ? [integer.format(m.requestsPerSecond), ms(m.p50), ms(m.p99)] : ['failed', '–', '–'];
  });
  const chunk = firstChunkOf(results, target);
  const paced = pacingOf(results, target);
  return [
    target,
    ...load,
    ...(chunk ? [ms(chunk.p50), ms(chunk.p99)] : ['failed', '–']),
    ...(paced
      ? [
          String(paced.eventsPerRequest),
          paced.readsPerRequest.toFixed(1),
          ms(paced.gapP50),
          ms(paced.gapP99),
        ]
      : ['failed', '–', '–', '–']),
  ];
}

/** What mnemo adds to a direct call: latencies less direct's, req/s over direct's. */
function addedRow(results: GatewayResults): string[] {
  const load = CONNECTIONS.flatMap((c) => {
    const m = loadOf(results, 'mnemo', c);
    const d = loadOf(results, 'direct', c);
    return m && d
      ? [times(m.requestsPerSecond / d.requestsPerSecond), ms(m.p50 - d.p50), ms(m.p99 - d.p99)]
      : ['–', '–', '–'];
  });
  const m = firstChunkOf(results, 'mnemo');
  const d = firstChunkOf(results, 'direct');
  return [
    'mnemo − direct',
    ...load,
    ...(m && d ? [ms(m.p50 - d.p50), ms(m.p99 - d.p99)] : ['–', '–']),
    '–',
    '–',
    '–',
    '–',
  ];
}

function ratioRow(results: GatewayResults): string[] {
  const load = CONNECTIONS.flatMap((c) => {
    const m = loadOf(results, 'mnemo', c);
    const p = loadOf(results, 'portkey', c);
    return [m && p ? times(m.requestsPerSecond / p.requestsPerSecond) : '–', '–', '–'];
  });
  return ['mnemo ÷ portkey', ...load, ...COLUMNS.slice(1 + load.length).map(() => '–')];
}

/**
 * One row per target: req/s, p50 and p99 at each number of connections; time to the first
 * streamed chunk; the paced streams' events and reads per response and the time between
 * reads. Then mnemo less direct, and mnemo over Portkey.
 */
export function formatGatewayTable(results: GatewayResults): string {
  const rows = [...TARGETS.map((t) => row(results, t)), addedRow(results), ratioRow(results)];
  return markdown(COLUMNS, rows, 1, COLUMNS.length - 1);
}

export function formatGatewayTargets(judgements: readonly GatewayJudgement[]): string {
  return markdown(
    ['target', 'bound', 'measured', 'verdict'],
    judgements.map((j) => [j.target.name, j.target.bound, j.figure, VERDICT_TEXT[j.verdict]]),
    1,
    0,
  );
}

const perRequest = (used: number | undefined, rate: number) =>
  used === undefined ? '–' : integer.format((used / rate) * 1e6);

/** What the machine did besides the gateway, the simulator and the load generator. */
function other(cpu: LoadCpu): number | undefined {
  if (cpu.machine === undefined || cpu.simulator === undefined) return undefined;
  return Math.max(0, cpu.machine - (cpu.gateway ?? 0) - cpu.simulator - cpu.loadGenerator);
}

const MEMORY_COLUMNS = [
  'mnemo, 1 connection',
  'req/s',
  'p50 ms',
  'p99 ms',
  'gateway µs/req',
  'simulator µs/req',
  'other',
];

function memoryRow(name: string, { measured, cpu }: MeasuredRun): string[] {
  const rate = measured.requestsPerSecond;
  return [
    name,
    integer.format(rate),
    ms(measured.p50),
    ms(measured.p99),
    perRequest(cpu.gateway, rate),
    perRequest(cpu.simulator, rate),
    cores(other(cpu)),
  ];
}

/** Per request, `read`'s CPU less `without`'s, in µs; '–' when either is unreadable. */
function addedPerRequest(read: MeasuredRun, without: MeasuredRun, side: 'gateway' | 'simulator') {
  const a = read.cpu[side];
  const b = without.cpu[side];
  if (a === undefined || b === undefined) return '–';
  const us = (a / read.measured.requestsPerSecond - b / without.measured.requestsPerSecond) * 1e6;
  return integer.format(us);
}

/**
 * The memory-read pair: each run's req/s, p50, p99 and CPU per call, then read less without
 * (req/s: read over without); then each question, what the store matches and what was recalled.
 */
export function formatGatewayMemory(results: GatewayResults): string {
  const run = memoryReadOf(results);
  if (!run) {
    const failed = results.memoryRead.ok ? '' : results.memoryRead.message;
    return `memory read on ${integer.format(RECALL_MEMORIES)} memories: FAILED (${failed})`;
  }
  const { read, without } = run;
  const table = markdown(
    MEMORY_COLUMNS,
    [
      memoryRow('without x-mnemo-memory', without),
      memoryRow('x-mnemo-memory: read', read),
      [
        'read − without',
        times(read.measured.requestsPerSecond / without.measured.requestsPerSecond),
        ms(read.measured.p50 - without.measured.p50),
        ms(read.measured.p99 - without.measured.p99),
        addedPerRequest(read, without, 'gateway'),
        addedPerRequest(read, without, 'simulator'),
        '–',
      ],
    ],
    1,
    MEMORY_COLUMNS.length - 1,
  );
  const questions = markdown(
    ['question', `matches of ${integer.format(run.memories)}`, 'recalled'],
    run.questions.map((q) => [q.question, integer.format(q.matches), String(q.recalled)]),
    1,
    2,
  );
  return `${table}

${questions}`;
}

/** CPU during each measured non-streaming run, in cores (100% = one core busy throughout). */
export function formatGatewayCpu(results: GatewayResults): string {
  const header = [
    'connections',
    'target',
    'req/s',
    'gateway CPU',
    'gateway µs/req',
    'simulator CPU',
    'simulator µs/req',
    'load CPU',
    'machine busy',
    'other',
    'steal',
  ];
  const rows = results.load.flatMap(({ target, connections, result }) => {
    if (!result.ok) return [];
    const { measured, cpu } = result.value;
    const rate = measured.requestsPerSecond;
    return [
      [
        String(connections),
        target,
        integer.format(rate),
        cores(cpu.gateway),
        perRequest(cpu.gateway, rate),
        cores(cpu.simulator),
        perRequest(cpu.simulator, rate),
        cores(cpu.loadGenerator),
        cores(cpu.machine),
        cores(other(cpu)),
        cores(cpu.steal),
      ],
    ];
  });
  return markdown(header, rows, 2, header.length - 1);
}

/** Every failure (once per target and reason) and unclean stop, then the targets met. */
export function formatGatewayFindings(
  results: GatewayResults,
  judgements: readonly GatewayJudgement[],
): string {
  const failures = new Map<string, { target: TargetName; message: string; runs: string[] }>();
  const runs = [
    ...results.load.map((r) => ({ ...r, run: `${r.connections} connection(s)` })),
    ...results.firstChunk.map((r) => ({ ...r, run: 'first chunk' })),
    ...results.pacing.map((r) => ({ ...r, run: 'paced streams' })),
  ];
  for (const { target, result, run } of runs) {
    if (result.ok) continue;
    const key = `${target}\n${result.message}`;
    const seen = failures.get(key) ?? { target, message: result.message, runs: [] };
    seen.runs.push(run);
    failures.set(key, seen);
  }
  const lines = [...failures.values()].map(
    (f) => `FAILED ${f.target} (${f.runs.join(', ')}): ${f.message}`,
  );
  if (!results.memoryRead.ok) {
    lines.push(`FAILED mnemo (memory read): ${results.memoryRead.message}`);
  }
  const memory = memoryReadOf(results);
  const measured = [
    ...results.load.map(({ target, connections, result }) => ({
      run: `${target} at ${connections} connection(s)`,
      cpu: result.ok ? result.value.cpu : undefined,
    })),
    ...(memory
      ? [
          { run: 'mnemo without x-mnemo-memory', cpu: memory.without.cpu },
          { run: 'mnemo with x-mnemo-memory: read', cpu: memory.read.cpu },
        ]
      : []),
  ];
  const disturbed = measured.flatMap(({ run, cpu }) => {
    const used = cpu && other(cpu);
    return used !== undefined && used >= DISTURBED ? [`${run} (${cores(used)})`] : [];
  });
  if (disturbed.length > 0) {
    lines.push(
      `other work on the machine used ≥ ${cores(DISTURBED)} of a core during: ${disturbed.join(', ')}`,
    );
  }
  for (const problem of results.problems) lines.push(`unclean stop: ${problem}`);
  const met = judgements.filter((j) => j.verdict === 'pass').length;
  lines.push(`gateway targets: ${met} of ${judgements.length} met`);
  return lines.join('\n');
}

const runJson = ({ measured, cpu }: MeasuredRun) => ({
  requestsPerSecond: measured.requestsPerSecond,
  p50Ms: measured.p50,
  p99Ms: measured.p99,
  responses: measured.responses,
  cpuCores: cpu,
});

function memoryJson(results: GatewayResults) {
  if (!results.memoryRead.ok) return { failed: results.memoryRead.message };
  const { memories, questions, without, read } = results.memoryRead.value;
  return {
    memories,
    connections: 1,
    questions,
    without: runJson(without),
    read: runJson(read),
    addedP50Ms: read.measured.p50 - without.measured.p50,
    addedP99Ms: read.measured.p99 - without.measured.p99,
  };
}

export function gatewayJson(results: GatewayResults, judgements: readonly GatewayJudgement[]) {
  return {
    load: results.load.map(({ target, connections, result }) => ({
      target,
      connections,
      ...(result.ok ? runJson(result.value) : { failed: result.message }),
    })),
    firstChunk: results.firstChunk.map(({ target, result }) => ({
      target,
      ...(result.ok ? result.value : { failed: result.message }),
    })),
    pacing: results.pacing.map(({ target, result }) => ({
      target,
      ...(result.ok ? result.value : { failed: result.message }),
    })),
    memoryRead: memoryJson(results),
    targets: judgements.map((j) => ({
      name: j.target.name,
      bound: j.target.bound,
      value: j.value ?? null,
      verdict: j.verdict,
    })),
    problems: results.problems,
  };
}
