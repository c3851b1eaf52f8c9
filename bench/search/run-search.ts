/**
 * The search part of `npm run bench` (`--only search`), on SQLite and PostgreSQL; `--parts`
 * runs some of its parts only (SEARCH_PARTS):
 *
 * - Quality: the labelled set (labelled-set.ts) through the HTTP API of a fresh app, recall@5
 *   and MRR per kind of query, lexical, and hybrid when hybrid.ts configures it.
 * - LoCoMo: five conversations of LoCoMo (locomo.ts), each turn a memory of its conversation's
 *   project pool, its questions asked of that pool: recall@5, recall@10, MRR and hit@5 per
 *   category, lexical and hybrid.
 * - Latency: searches of one member's store of 100,000 memories (corpus.ts), by kind of query,
 *   against GET one memory of the same store, with one connection: what one search takes. And
 *   GET one beside four connections asking the heavy question: what searches do to the rest.
 * - The add path: POST throughput to a store with its search index and to one without.
 */
import { indexTerms } from '../../src/platform/search-analyzer.ts';
import { cores, integer, markdown, ms } from '../report.ts';
import { type LoadOptions, runSetups, type ScenarioResult, type SetupRun } from '../session.ts';
import type { Setup } from '../setups.ts';
import { corpusTexts } from './corpus.ts';
import { HYBRID_SEARCH } from './hybrid.ts';
import { MEMORIES, QUERIES, QUERY_KINDS, USERS } from './labelled-set.ts';
import {
  ADD_ROUNDS,
  ADD_SCENARIOS,
  ADD_VARIANTS,
  addScenarioName,
  BESIDE_AIM,
  BESIDE_QUERY,
  CORPUS_SIZE,
  corpusTerms,
  countMatches,
  getOneBesideSearches,
  type Matches,
  SEARCH_GET_ONE,
  SEARCH_QUERIES,
  SEARCHING_CONNECTIONS,
  searchScenario,
} from './latency.ts';
import { loadLocomo } from './locomo.ts';
import { measureLocomo } from './locomo-quality.ts';
import { formatLocomo, type LocomoOutcome, locomoJson, missesLocomoAims } from './locomo-report.ts';
import {
  AIMED_KINDS,
  type Figures,
  figuresOf,
  RECALL_AIM,
  RECALL_DEPTH,
  recallAtDepth,
} from './metrics.ts';
import { measureQuality, type QualityRun } from './quality.ts';
import { everyMode, type QualityOutcome, SEARCH_LIMIT } from './quality-app.ts';

/** One connection: the time of a search itself, not of a queue of them. */
export const LATENCY_CONNECTIONS = 1;

/** The parts `--parts` names, in the order they run; all of them by default. */
export const SEARCH_PARTS = ['quality', 'locomo', 'latency', 'adds'] as const;
export type SearchPart = (typeof SEARCH_PARTS)[number];

export interface SearchPartOptions {
  /** The setups to measure on: one per engine (`sqlite-1`, `postgres-1`). */
  readonly setups: readonly Setup[];
  /** The parts to run. */
  readonly parts: ReadonlySet<SearchPart>;
  /** The searches' runs; the adds run with `load.connections`. */
  readonly load: LoadOptions;
  readonly dir: string;
  readonly profileDir: string | undefined;
  readonly log: (line: string) => void;
}

export interface SearchOutcome {
  readonly broken: boolean;
  readonly missed: boolean;
  readonly json: unknown;
}

const two = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '–');

type LabelledOutcome = QualityOutcome<QualityRun>;

const GROUPS = [
  ...QUERY_KINDS.map((kind) => ({ label: kind, kinds: [kind] })),
  { label: 'all but paraphrase', kinds: AIMED_KINDS },
  { label: 'all', kinds: QUERY_KINDS },
] as const;

function figuresByGroup(run: QualityRun): Figures[] {
  return GROUPS.map(({ kinds }) =>
    figuresOf(run.searched.filter((s) => (kinds as readonly string[]).includes(s.query.kind))),
  );
}

/** The kinds whose recall@5 is below the aim, as `question 0.78`. */
function missedAims(run: QualityRun): string[] {
  return AIMED_KINDS.flatMap((kind) => {
    const { recall } = figuresOf(run.searched.filter((s) => s.query.kind === kind));
    return recall < RECALL_AIM ? [`${kind} ${two(recall)}`] : [];
  });
}

function formatQuality(outcomes: readonly LabelledOutcome[], engines: readonly Setup[]): string {
  const counts = GROUPS.map(
    ({ kinds }) => QUERIES.filter((q) => (kinds as readonly string[]).includes(q.kind)).length,
  );
  const header = ['engine', 'search', ...GROUPS.map((g, i) => `${g.label} (${counts[i]})`)];
  const rows: string[][] = [];
  for (const setup of engines) {
    for (const mode of ['lexical', 'hybrid'] as const) {
      const outcome = outcomes.find((o) => o.setup === setup && o.mode === mode);
      if (!outcome) {
        rows.push([setup.engine, mode, 'not configured (bench/search/hybrid.ts)']);
      } else if ('error' in outcome) {
        rows.push([setup.engine, mode, `FAILED: ${outcome.error}`]);
      } else {
        rows.push([
          setup.engine,
          mode,
          ...figuresByGroup(outcome.run).map((f) => `${two(f.recall)} / ${two(f.mrr)}`),
        ]);
      }
    }
  }
  const lines = [
    '### Quality: the labelled set',
    '',
    `${MEMORIES.length} memories of ${USERS.length} members of one organization, ${QUERIES.length} queries, each asked by one member of their own store (bench/search/labelled-set.ts). ` +
      `Each cell: recall@${RECALL_DEPTH} / MRR. recall@${RECALL_DEPTH}: the share of a query's answers among the first ${RECALL_DEPTH} memories answered, averaged over the queries. ` +
      `MRR: 1 / the rank of the first answer among the ${SEARCH_LIMIT} answered (0 when none is there), averaged.`,
    '',
    markdown(header, rows, 2, header.length - 1),
    '',
  ];
  for (const outcome of outcomes) {
    if ('error' in outcome) continue;
    const missed = missedAims(outcome.run);
    const name = `${outcome.setup.engine}, ${outcome.mode}`;
    lines.push(
      missed.length === 0
        ? `${name}: recall@${RECALL_DEPTH} ≥ ${RECALL_AIM} on every kind but paraphrase: met`
        : `${name}: recall@${RECALL_DEPTH} ≥ ${RECALL_AIM} on every kind but paraphrase: MISSED on ${missed.join(', ')}`,
    );
    if (outcome.run.otherModeAnswers > 0) {
      lines.push(
        `${name}: ${outcome.run.otherModeAnswers} answers were not ${outcome.mode} (fell back)`,
      );
    }
  }
  lines.push('', ...formatMisses(outcomes));
  return lines.join('\n');
}

/** Every query of the aimed kinds that some run did not answer fully in its top 5. */
function formatMisses(outcomes: readonly LabelledOutcome[]): string[] {
  const runs = outcomes.flatMap((o) => ('run' in o ? [o] : []));
  const rankOf = (run: QualityRun, index: number) => {
    const searched = run.searched[index];
    if (!searched) return '?';
    return searched.query.answers
      .map((key) => {
        const rank = searched.ranked.indexOf(key);
        return rank === -1 ? '–' : String(rank + 1);
      })
      .join(', ');
  };
  const rows = QUERIES.flatMap((query, index) => {
    if (!AIMED_KINDS.includes(query.kind)) return [];
    const partial = runs.some((o) => {
      const searched = o.run.searched[index];
      return searched !== undefined && recallAtDepth(searched) < 1;
    });
    if (!partial) return [];
    return [
      [
        query.kind,
        query.user,
        query.q,
        query.answers.map((key) => key.slice(key.indexOf('/') + 1)).join(', '),
        ...runs.map((o) => rankOf(o.run, index)),
      ],
    ];
  });
  if (rows.length === 0) return [];
  return [
    `Queries of those kinds with an answer outside the top ${RECALL_DEPTH}: the rank of each answer (– when not among the ${SEARCH_LIMIT} answered).`,
    '',
    markdown(
      ['kind', 'member', 'query', 'answers', ...runs.map((o) => `${o.setup.engine} ${o.mode}`)],
      rows,
      4,
      3 + runs.length,
    ),
  ];
}

function measuredOf(run: SetupRun | undefined, name: string) {
  const result: ScenarioResult | undefined = run?.results.find((r) => r.scenario.name === name);
  return result?.outcome;
}

function loadCells(run: SetupRun | undefined, name: string, base?: string): string[] {
  const outcome = measuredOf(run, name);
  if (!outcome) return ['–', '–', '–', ...(base ? ['–'] : [])];
  if (!outcome.ok) return [`failed (${outcome.stage})`, '–', '–', ...(base ? ['–'] : [])];
  const { measured } = outcome;
  const cells = [integer.format(measured.requestsPerSecond), ms(measured.p50), ms(measured.p99)];
  if (!base) return cells;
  const baseline = measuredOf(run, base);
  const ratio = baseline?.ok ? measured.p50 / baseline.measured.p50 : Number.NaN;
  return [...cells, Number.isFinite(ratio) ? `${ratio.toFixed(1)}×` : '–'];
}

function formatLatency(
  runs: readonly SetupRun[],
  matches: ReadonlyMap<string, Matches>,
  load: LoadOptions,
): string {
  const header = [
    'search',
    'q',
    'matches',
    ...runs.flatMap((r) => [`${r.setup.short} req/s`, 'p50 ms', 'p99 ms', 'p50 ÷ GET one']),
  ];
  const rows = [
    [
      SEARCH_GET_ONE.title,
      '–',
      '1',
      ...runs.flatMap((r) => [...loadCells(r, SEARCH_GET_ONE.name), '1.0×']),
    ],
    ...SEARCH_QUERIES.map((query) => {
      const found = matches.get(query.name);
      return [
        query.title,
        JSON.stringify(query.q),
        found === undefined ? '?' : integer.format(found.count),
        ...runs.flatMap((r) => loadCells(r, query.name, SEARCH_GET_ONE.name)),
      ];
    }),
  ];
  return [
    `### Latency: one member's store of ${integer.format(CORPUS_SIZE)} memories`,
    '',
    `Generated from templates (bench/search/corpus.ts); ${LATENCY_CONNECTIONS} connection, ${load.warmup} s warm-up, ${load.seconds} s measured; each search answers up to ${SEARCH_LIMIT} memories. ` +
      '`matches`: the memories of the store the query matches (every word, or any when none holds them all).',
    '',
    markdown(header, rows, 2, header.length - 1),
  ].join('\n');
}

/** GET one alone and beside the searches: its p99 beside ÷ alone, per engine. */
function besideFigures(run: SetupRun, name: string) {
  const alone = measuredOf(run, SEARCH_GET_ONE.name);
  const beside = measuredOf(run, name);
  if (!alone?.ok || !beside?.ok) return undefined;
  const searches = beside.beside?.[0];
  return {
    alone: alone.measured,
    beside: beside.measured,
    searches,
    ratio: beside.measured.p99 / alone.measured.p99,
  };
}

function formatBeside(runs: readonly SetupRun[], name: string, load: LoadOptions): string {
  const header = [
    'engine',
    'GET one alone p50 ms',
    'p99 ms',
    'beside searches p50 ms',
    'p99 ms',
    'p99 beside ÷ alone',
    'searches req/s',
    'search p50 ms',
    'search p99 ms',
  ];
  const rows = runs.map((run) => {
    const f = besideFigures(run, name);
    if (!f) return [run.setup.engine, 'failed', '–', '–', '–', '–', '–', '–', '–'];
    return [
      run.setup.engine,
      ms(f.alone.p50),
      ms(f.alone.p99),
      ms(f.beside.p50),
      ms(f.beside.p99),
      `${f.ratio.toFixed(1)}×`,
      f.searches ? integer.format(f.searches.requestsPerSecond) : '–',
      f.searches ? ms(f.searches.p50) : '–',
      f.searches ? ms(f.searches.p99) : '–',
    ];
  });
  const verdicts = runs.flatMap((run) => {
    const f = besideFigures(run, name);
    if (!f) return [];
    const met = f.ratio <= BESIDE_AIM ? 'met' : 'MISSED';
    return [`${run.setup.engine}: GET one's p99 beside searches ≤ ${BESIDE_AIM}× alone: ${met}`];
  });
  return [
    '### A search beside other requests',
    '',
    `GET one memory of the store of ${integer.format(CORPUS_SIZE)}, ${LATENCY_CONNECTIONS} connection: alone, and while ${SEARCHING_CONNECTIONS} other connections ask ${JSON.stringify(BESIDE_QUERY.q)} of the same server (the searches' own figures in the last columns). ` +
      `${load.warmup} s warm-up, ${load.seconds} s measured, one run after the other.`,
    '',
    markdown(header, rows, 1, header.length - 1),
    '',
    ...verdicts,
  ].join('\n');
}

/** Whether some engine's GET one p99 beside searches is over the aim. */
function missesBesideAim(runs: readonly SetupRun[], name: string): boolean {
  return runs.some((run) => {
    const f = besideFigures(run, name);
    return f !== undefined && f.ratio > BESIDE_AIM;
  });
}

/** CPU per response, µs. */
const perRequest = (used: number | undefined, requestsPerSecond: number) =>
  used === undefined ? undefined : (used / requestsPerSecond) * 1e6;

interface AddFigures {
  readonly requestsPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  /** CPU per response, µs: of the server process, and of PostgreSQL's processes. */
  readonly server: number | undefined;
  readonly engine: number | undefined;
  /** Every process of the machine, in cores: other work shows here. */
  readonly machine: number | undefined;
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : (sorted[Math.floor(sorted.length / 2)] as number);
};

/** One round of one variant's adds; undefined when it failed. */
function addRound(run: SetupRun, kind: string, round: number): AddFigures | undefined {
  const outcome = measuredOf(run, addScenarioName(kind, round));
  if (!outcome?.ok) return undefined;
  const { measured, cpu } = outcome;
  return {
    requestsPerSecond: measured.requestsPerSecond,
    p50: measured.p50,
    p99: measured.p99,
    server: perRequest(cpu.servers[0], measured.requestsPerSecond),
    engine: perRequest(cpu.engine, measured.requestsPerSecond),
    machine: cpu.machine,
  };
}

/** The median of each figure over the rounds of one variant; undefined when a round failed. */
function addFigures(run: SetupRun, kind: string): AddFigures | undefined {
  const rounds = Array.from({ length: ADD_ROUNDS }, (_, r) => addRound(run, kind, r + 1));
  if (rounds.some((round) => round === undefined)) return undefined;
  const of = (figure: keyof AddFigures) => {
    const values = rounds.map((round) => round?.[figure]);
    return values.some((v) => v === undefined) ? undefined : median(values as number[]);
  };
  return {
    requestsPerSecond: of('requestsPerSecond') as number,
    p50: of('p50') as number,
    p99: of('p99') as number,
    server: of('server'),
    engine: of('engine'),
    machine: of('machine'),
  };
}

function formatAdds(runs: readonly SetupRun[], load: LoadOptions, analysisMicros: number): string {
  const [indexed, unindexed] = ADD_VARIANTS;
  const postgres = (r: SetupRun) => r.setup.engine === 'postgres';
  const header = [
    'store',
    ...runs.flatMap((r) => [
      `${r.setup.short} req/s`,
      'p50 ms',
      'p99 ms',
      'server µs/req',
      ...(postgres(r) ? ['postgres µs/req'] : []),
      'machine busy',
    ]),
  ];
  const number = (value: number | undefined) => (value === undefined ? '–' : integer.format(value));
  const row = (title: string, kind: string) => [
    title,
    ...runs.flatMap((r) => {
      const f = addFigures(r, kind);
      return [
        f ? integer.format(f.requestsPerSecond) : 'failed',
        f ? ms(f.p50) : '–',
        f ? ms(f.p99) : '–',
        number(f?.server),
        ...(postgres(r) ? [number(f?.engine)] : []),
        cores(f?.machine),
      ];
    }),
  ];
  const ratio = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined ? '–' : `${(a / b).toFixed(2)}×`;
  const ratios = [
    'with ÷ without',
    ...runs.flatMap((r) => {
      const a = addFigures(r, indexed.kind);
      const b = addFigures(r, unindexed.kind);
      return [
        ratio(a?.requestsPerSecond, b?.requestsPerSecond),
        ratio(a?.p50, b?.p50),
        ratio(a?.p99, b?.p99),
        ratio(a?.server, b?.server),
        ...(postgres(r) ? [ratio(a?.engine, b?.engine)] : []),
        '',
      ];
    }),
  ];
  const perRound = runs.map((r) => {
    const each = Array.from({ length: ADD_ROUNDS }, (_, i) => {
      const a = addRound(r, indexed.kind, i + 1);
      const b = addRound(r, unindexed.kind, i + 1);
      return ratio(a?.requestsPerSecond, b?.requestsPerSecond);
    });
    return `${r.setup.short} ${each.join(', ')}`;
  });
  return [
    '### The add path: what the search index costs',
    '',
    `POST /api/v1/memory of new memories to an empty store, ${load.connections} connections, ${load.warmup} s warm-up, ${load.seconds} s measured, ` +
      `${ADD_ROUNDS} rounds alternating: with the search index, and on a store migrated the same way and then stripped of it (SQLite's FTS5 table and its triggers; PostgreSQL's tsvector column and GIN index). ` +
      `Each figure is the median of the rounds. Both analyze each memory's text for the index (the service does it): ${analysisMicros.toFixed(1)} µs a memory of the 100k corpus, in this process.`,
    '',
    markdown(
      header,
      [row(`with the search index`, indexed.kind), row('without', unindexed.kind), ratios],
      1,
      header.length - 1,
    ),
    '',
    `req/s with ÷ without, round by round: ${perRound.join('; ')}`,
  ].join('\n');
}

/** The analysis every add pays on both sides: µs per memory, over a sample of the corpus. */
function analysisCost(): number {
  const texts = corpusTexts(10_000);
  for (const text of texts.slice(0, 1000)) indexTerms(text);
  const started = performance.now();
  for (const text of texts) indexTerms(text);
  return ((performance.now() - started) * 1000) / texts.length;
}

function latencyJson(
  latency: readonly SetupRun[],
  matches: ReadonlyMap<string, Matches>,
  besideName: string,
) {
  return latency.map((run) => ({
    setup: run.setup.id,
    getOne: measuredJson(run, SEARCH_GET_ONE.name),
    besideSearches: (() => {
      const f = besideFigures(run, besideName);
      return f
        ? { getOne: f.beside, searches: f.searches ?? null, p99Ratio: f.ratio }
        : measuredJson(run, besideName);
    })(),
    searches: SEARCH_QUERIES.map((q) => ({
      ...q,
      matches: matches.get(q.name),
      measured: measuredJson(run, q.name),
    })),
  }));
}

function measuredJson(run: SetupRun, name: string) {
  const outcome = measuredOf(run, name);
  return outcome?.ok ? outcome.measured : (outcome ?? null);
}

function addsJson(adds: readonly SetupRun[]) {
  return adds.map((run) => ({
    setup: run.setup.id,
    rounds: Array.from({ length: ADD_ROUNDS }, (_, r) =>
      Object.fromEntries(
        ADD_VARIANTS.map(({ kind }) => [kind, addRound(run, kind, r + 1) ?? null]),
      ),
    ),
  }));
}

function qualityJson(outcomes: readonly LabelledOutcome[]) {
  return outcomes.map((o) => ({
    engine: o.setup.engine,
    mode: o.mode,
    ...('error' in o
      ? { error: o.error }
      : {
          groups: Object.fromEntries(GROUPS.map((g, i) => [g.label, figuresByGroup(o.run)[i]])),
        }),
  }));
}

/** The latency part: searches of the store of 100,000, each a load run of its own. */
async function latencyPart(options: SearchPartOptions, out: (text: string) => void) {
  const { log } = options;
  log('search latency: counting what each query matches in the corpus');
  const terms = corpusTerms();
  const matches = new Map(SEARCH_QUERIES.map((q) => [q.name, countMatches(terms, q.q)]));
  const beside = getOneBesideSearches(matches.get(BESIDE_QUERY.name) as Matches);
  // Each scenario on its own: search compares queries, not setups, nor one query with another.
  // GET one alone and beside searches are one group: measured one right after the other.
  const latency = await runSetups(
    options.setups,
    [
      [SEARCH_GET_ONE, beside],
      ...SEARCH_QUERIES.map((q) => [searchScenario(q, matches.get(q.name) as Matches)]),
    ],
    {
      dir: options.dir,
      profileDir: options.profileDir,
      log,
      load: { ...options.load, connections: LATENCY_CONNECTIONS },
    },
  );
  out(formatLatency(latency, matches, options.load));
  out('');
  out(formatBeside(latency, beside.name, options.load));
  out('');
  return {
    runs: latency,
    json: latencyJson(latency, matches, beside.name),
    missed: missesBesideAim(latency, beside.name),
  };
}

/** The add path: adds with and without the search index. */
async function addsPart(options: SearchPartOptions, out: (text: string) => void) {
  const adds = await runSetups(
    options.setups,
    ADD_SCENARIOS.map((scenario) => [scenario]),
    { dir: options.dir, profileDir: options.profileDir, log: options.log, load: options.load },
  );
  const analysisMicros = analysisCost();
  out(formatAdds(adds, options.load, analysisMicros));
  out('');
  return { runs: adds, json: { adds: addsJson(adds), analysisMicrosPerMemory: analysisMicros } };
}

/** Runs the parts of search asked for and prints their tables on `out`. */
export async function benchSearch(
  options: SearchPartOptions,
  out: (text: string) => void,
): Promise<SearchOutcome> {
  const { log, parts, setups, dir } = options;
  out('## Search');
  out('');
  let labelled: LabelledOutcome[] = [];
  let locomo: LocomoOutcome[] = [];
  const json: Record<string, unknown> = {};
  if (parts.has('quality')) {
    labelled = await everyMode(setups, HYBRID_SEARCH, 'search quality', log, (setup, hybrid) =>
      measureQuality(setup, hybrid, dir, log),
    );
    out(formatQuality(labelled, setups));
    out('');
    json.quality = qualityJson(labelled);
  }
  if (parts.has('locomo')) {
    const set = loadLocomo();
    locomo = await everyMode(setups, HYBRID_SEARCH, 'search LoCoMo', log, (setup, hybrid) =>
      measureLocomo(setup, hybrid, set, dir, log),
    );
    out(formatLocomo(locomo, setups, set));
    out('');
    json.locomo = locomoJson(locomo, set);
  }
  const runs: SetupRun[] = [];
  let besideMissed = false;
  if (parts.has('latency')) {
    const latency = await latencyPart(options, out);
    runs.push(...latency.runs);
    json.latency = latency.json;
    besideMissed = latency.missed;
  }
  if (parts.has('adds')) {
    const adds = await addsPart(options, out);
    runs.push(...adds.runs);
    Object.assign(json, adds.json);
  }

  for (const run of runs) {
    for (const result of run.results) {
      if (!result.outcome.ok) {
        out(
          `${run.setup.name}: ${result.scenario.name} failed (${result.outcome.stage}): ${result.outcome.message}`,
        );
      }
    }
    for (const problem of run.problems) out(`${run.setup.name}: ${problem}`);
  }
  const quality = [...labelled, ...locomo];
  return {
    broken:
      quality.some((o) => 'error' in o || o.run.otherModeAnswers > 0) ||
      runs.some((r) => r.problems.length > 0 || r.results.some((x) => !x.outcome.ok)),
    missed:
      labelled.some((o) => 'run' in o && missedAims(o.run).length > 0) ||
      locomo.some(missesLocomoAims) ||
      besideMissed,
    json,
  };
}
