/** The LoCoMo part's table, aims and JSON, from its runs (locomo-quality.ts). */
import { integer, markdown } from '../report.ts';
import type { Setup } from '../setups.ts';
import {
  CATEGORY_NAMES,
  LOCOMO_CATEGORIES,
  type LocomoCategory,
  type LocomoSet,
} from './locomo.ts';
import {
  LOCOMO_AIMS,
  LOCOMO_REFERENCE,
  type LocomoFigures,
  locomoFigures,
  missedLocomoAims,
} from './locomo-metrics.ts';
import type { LocomoRun } from './locomo-quality.ts';
import { type QualityOutcome, SEARCH_LIMIT } from './quality-app.ts';

export type LocomoOutcome = QualityOutcome<LocomoRun>;

/** The columns: each category, then all four together. */
const GROUPS: readonly {
  readonly label: string;
  readonly categories: readonly LocomoCategory[];
}[] = [
  ...LOCOMO_CATEGORIES.map((category) => ({
    label: CATEGORY_NAMES[category],
    categories: [category],
  })),
  { label: 'all', categories: LOCOMO_CATEGORIES },
];

function figuresByGroup(run: LocomoRun): LocomoFigures[] {
  return GROUPS.map(({ categories }) =>
    locomoFigures(run.searched.filter((s) => categories.includes(s.question.category))),
  );
}

const overall = (run: LocomoRun) => locomoFigures(run.searched);

const two = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '–');
const range = ([low, high]: readonly [number, number]) => `${two(low)}–${two(high)}`;
const cell = (f: LocomoFigures) =>
  `${two(f.recall5)} / ${two(f.recall10)} / ${two(f.mrr)} / ${two(f.hit5)}`;
const aimText = `recall@5 ≥ ${LOCOMO_AIMS.recall5} and recall@10 ≥ ${LOCOMO_AIMS.recall10} on categories 1–4`;

/** Whether a lexical run misses the aims; hybrid runs are not held to them. */
export function missesLocomoAims(outcome: LocomoOutcome): boolean {
  return 'run' in outcome && outcome.mode === 'lexical'
    ? missedLocomoAims(overall(outcome.run)).length > 0
    : false;
}

function describeRepairs(set: LocomoSet): string {
  const { split, rewritten, dropped, questionsDropped } = set.repairs;
  const counted = (entries: readonly string[], one: string, many: string, done: string) =>
    `${entries.length} ${entries.length === 1 ? one : many} ${done}${entries.length ? ` (${entries.join(', ')})` : ''}`;
  return (
    'Evidence as the data gives it, normalized (bench/search/locomo/README.md): ' +
    `${counted(split, 'entry', 'entries', 'naming several turns split into their ids')}; ` +
    `${counted(rewritten, 'id', 'ids', 'written loosely read as the turn named')}; ` +
    `${counted(dropped, 'id', 'ids', 'naming no turn dropped')}; ` +
    `${counted(questionsDropped, 'question', 'questions', 'left with no evidence dropped')}. ` +
    `${set.adversarial} questions of category 5 (adversarial) left out.`
  );
}

export function formatLocomo(
  outcomes: readonly LocomoOutcome[],
  engines: readonly Setup[],
  set: LocomoSet,
): string {
  const questions = set.conversations.flatMap((c) => c.questions);
  const turns = set.conversations.reduce((n, c) => n + c.turns.length, 0);
  const counts = GROUPS.map(
    ({ categories }) => questions.filter((q) => categories.includes(q.category)).length,
  );
  const header = ['engine', 'search', ...GROUPS.map((g, i) => `${g.label} (${counts[i]})`)];
  const rows: string[][] = [];
  for (const setup of engines) {
    for (const mode of ['lexical', 'hybrid'] as const) {
      const outcome = outcomes.find((o) => o.setup === setup && o.mode === mode);
      if (!outcome) rows.push([setup.engine, mode, 'not configured (bench/search/hybrid.ts)']);
      else if ('error' in outcome) rows.push([setup.engine, mode, `FAILED: ${outcome.error}`]);
      else rows.push([setup.engine, mode, ...figuresByGroup(outcome.run).map(cell)]);
    }
  }
  rows.push([
    'published',
    LOCOMO_REFERENCE.name,
    ...GROUPS.slice(0, -1).map(() => ''),
    `${range(LOCOMO_REFERENCE.recall5)} / ${range(LOCOMO_REFERENCE.recall10)} / – / –`,
  ]);
  const lines = [
    '### Quality: LoCoMo',
    '',
    `LoCoMo's first five conversations (bench/search/locomo/, CC BY-NC 4.0): ${integer.format(turns)} dialogue turns, each a memory \`[<session date>] <speaker>: <text>\` in its conversation's project pool; ` +
      `${questions.length} questions of categories 1–4, each asked as written of its own pool with limit=${SEARCH_LIMIT}. ` +
      'Each cell: recall@5 / recall@10 / MRR / hit@5. recall@k: the share of a question’s evidence turns among the first k answered (LoCoMo’s definition), averaged over the questions; ' +
      `MRR: 1 / the rank of the first evidence turn among the ${SEARCH_LIMIT} answered (0 when none is there), averaged; hit@5: the share of questions with an evidence turn in the first 5. ` +
      `The published row is quoted from LoCoMo’s paper (Table 3: ${LOCOMO_REFERENCE.name}, a dense retriever, over dialogue turns), not measured here.`,
    '',
    markdown(header, rows, 2, header.length - 1),
    '',
    describeRepairs(set),
    '',
  ];
  for (const outcome of outcomes) {
    if ('error' in outcome) continue;
    const name = `${outcome.setup.engine}, ${outcome.mode}`;
    if (outcome.mode === 'lexical') {
      const missed = missedLocomoAims(overall(outcome.run));
      lines.push(
        missed.length === 0
          ? `${name}: ${aimText}: met`
          : `${name}: ${aimText}: MISSED (${missed.join(', ')})`,
      );
    }
    if (outcome.run.otherModeAnswers > 0) {
      lines.push(
        `${name}: ${outcome.run.otherModeAnswers} answers were not ${outcome.mode} (fell back)`,
      );
    }
  }
  const times = outcomes.flatMap((o) =>
    'run' in o
      ? [
          `${o.setup.engine} ${o.mode} ${o.run.seconds.adds.toFixed(1)} s + ${o.run.seconds.searches.toFixed(1)} s`,
        ]
      : [],
  );
  if (times.length > 0) lines.push(`Adds (and vectors) + searches took: ${times.join('; ')}.`);
  return lines.join('\n');
}

/** The figures as data, and each question's evidence ranks (null when not among those answered). */
export function locomoJson(outcomes: readonly LocomoOutcome[], set: LocomoSet) {
  return {
    aims: LOCOMO_AIMS,
    reference: LOCOMO_REFERENCE,
    repairs: set.repairs,
    adversarialLeftOut: set.adversarial,
    runs: outcomes.map((o) => ({
      engine: o.setup.engine,
      mode: o.mode,
      ...('error' in o
        ? { error: o.error }
        : {
            groups: Object.fromEntries(GROUPS.map((g, i) => [g.label, figuresByGroup(o.run)[i]])),
            otherModeAnswers: o.run.otherModeAnswers,
            seconds: o.run.seconds,
            questions: o.run.searched.map(({ question, evidence, ranked }) => ({
              conversation: question.conversation,
              index: question.index,
              category: question.category,
              ranks: evidence.map((turn) => {
                const rank = ranked.indexOf(turn);
                return rank === -1 ? null : rank + 1;
              }),
            })),
          }),
    })),
  };
}
