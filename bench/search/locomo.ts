/**
 * LoCoMo's development half (bench/search/locomo/: its first five conversations, CC BY-NC 4.0,
 * the note beside the data) as the search bench reads it: every dialogue turn one memory of its
 * conversation's pool, and the questions of categories 1–4 with their evidence turns normalized.
 */
import { readFileSync } from 'node:fs';

/** LoCoMo's categories as its code names them (task_eval/evaluation.py); 5 is left out. */
export const LOCOMO_CATEGORIES = [1, 2, 3, 4] as const;
export type LocomoCategory = (typeof LOCOMO_CATEGORIES)[number];

export const CATEGORY_NAMES: Readonly<Record<LocomoCategory, string>> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
};

/** Category 5: unanswerable by design, so no turn is evidence of an answer. */
const ADVERSARIAL = 5;

export interface LocomoTurn {
  /** `D3:12`: the turn's id in its conversation, as the evidence names it. */
  readonly diaId: string;
  /** `[<session date>] <speaker>: <text>`, the date as the data gives it. */
  readonly content: string;
}

export interface LocomoQuestion {
  /** The conversation's `sample_id`: `conv-26`. */
  readonly conversation: string;
  /** Its place in the conversation's `qa`, counted from 0, every category included. */
  readonly index: number;
  readonly question: string;
  readonly category: LocomoCategory;
  /** The turns that hold the answer: distinct, each a turn of the conversation. */
  readonly evidence: readonly string[];
}

export interface LocomoConversation {
  readonly id: string;
  readonly turns: readonly LocomoTurn[];
  readonly questions: readonly LocomoQuestion[];
}

/** What reading the evidence changed, each as `<conversation>: <entry as given>`. */
export interface EvidenceRepairs {
  /** Entries naming several turns in one string (`"D8:6; D9:17"`): split into their ids. */
  readonly split: readonly string[];
  /** Ids written loosely (`"D:11:26"`): read as the turn they name (`D11:26`). */
  readonly rewritten: readonly string[];
  /** Entries or ids naming no turn of the conversation (`"D"`, `"D10:19"` of 16 turns): dropped. */
  readonly dropped: readonly string[];
  /** Questions of categories 1–4 left with no evidence, as `<conversation> #<index>`: dropped. */
  readonly questionsDropped: readonly string[];
}

export interface LocomoSet {
  readonly conversations: readonly LocomoConversation[];
  readonly repairs: EvidenceRepairs;
  /** Questions of category 5, left out. */
  readonly adversarial: number;
}

export class LocomoFormatError extends Error {
  override readonly name = 'LocomoFormatError';
}

/** `D<session>:<turn>`, and the loose `D:<session>:<turn>` seen once in the data. */
const TURN_ID = /^D:?(\d+):(\d+)$/;

/**
 * The turn ids one evidence entry names, split on `;`, `,` and white space, each in the form
 * `D<session>:<turn>`; what reads as no id at all is returned apart.
 */
export function evidenceIds(entry: string): { ids: string[]; malformed: string[] } {
  const ids: string[] = [];
  const malformed: string[] = [];
  for (const piece of entry.split(/[;,\s]+/).filter(Boolean)) {
    const match = TURN_ID.exec(piece);
    if (match) ids.push(`D${match[1]}:${match[2]}`);
    else malformed.push(piece);
  }
  return { ids, malformed };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function text(record: Record<string, unknown>, key: string, where: string): string {
  const value = record[key];
  if (typeof value !== 'string') throw new LocomoFormatError(`${where}: ${key} is not a string`);
  return value;
}

/** The sessions' turns in order, each as its memory's text. */
function turnsOf(conversation: Record<string, unknown>, where: string): LocomoTurn[] {
  const sessions = Object.keys(conversation)
    .flatMap((key) => {
      const match = /^session_(\d+)$/.exec(key);
      return match ? [{ key, number: Number(match[1]) }] : [];
    })
    .sort((a, b) => a.number - b.number);
  return sessions.flatMap(({ key }) => {
    const turns = conversation[key];
    if (!Array.isArray(turns)) throw new LocomoFormatError(`${where}: ${key} is not a list`);
    const date = text(conversation, `${key}_date_time`, where);
    return turns.map((turn: unknown, i) => {
      if (!isRecord(turn)) throw new LocomoFormatError(`${where}: ${key}[${i}] is not a turn`);
      const at = `${where}, ${key}[${i}]`;
      // The image a turn shares (img_url, blip_caption) is left out: the memory is what was said.
      return {
        diaId: text(turn, 'dia_id', at),
        content: `[${date}] ${text(turn, 'speaker', at)}: ${text(turn, 'text', at)}`,
      };
    });
  });
}

/** Reads the data set's JSON (an array of samples, LoCoMo's own format). */
export function parseLocomo(data: unknown): LocomoSet {
  if (!Array.isArray(data)) throw new LocomoFormatError('not a list of conversations');
  const split: string[] = [];
  const rewritten: string[] = [];
  const dropped: string[] = [];
  const questionsDropped: string[] = [];
  let adversarial = 0;
  const conversations = data.map((sample: unknown, s): LocomoConversation => {
    if (!isRecord(sample) || !isRecord(sample.conversation) || !Array.isArray(sample.qa)) {
      throw new LocomoFormatError(`sample ${s}: no conversation or qa`);
    }
    const id = text(sample, 'sample_id', `sample ${s}`);
    const turns = turnsOf(sample.conversation, id);
    const known = new Set(turns.map((turn) => turn.diaId));
    if (known.size !== turns.length) throw new LocomoFormatError(`${id}: a dia_id twice`);
    const questions = sample.qa.flatMap((qa: unknown, index): LocomoQuestion[] => {
      const where = `${id}, qa[${index}]`;
      if (!isRecord(qa) || !Array.isArray(qa.evidence)) {
        throw new LocomoFormatError(`${where}: no evidence list`);
      }
      const category = qa.category;
      if (category === ADVERSARIAL) {
        adversarial++;
        return [];
      }
      if (!LOCOMO_CATEGORIES.includes(category as LocomoCategory)) {
        throw new LocomoFormatError(`${where}: category ${String(category)}`);
      }
      const evidence = new Set<string>();
      for (const entry of qa.evidence as unknown[]) {
        if (typeof entry !== 'string') throw new LocomoFormatError(`${where}: evidence ${entry}`);
        const { ids, malformed } = evidenceIds(entry);
        const named = `${id}: ${JSON.stringify(entry)}`;
        if (ids.length + malformed.length > 1) split.push(named);
        if (ids.length === 1 && malformed.length === 0 && ids[0] !== entry) rewritten.push(named);
        for (const piece of malformed) dropped.push(`${id}: ${JSON.stringify(piece)}`);
        for (const turn of ids) {
          if (known.has(turn)) evidence.add(turn);
          else dropped.push(`${id}: ${JSON.stringify(turn)}`);
        }
      }
      if (evidence.size === 0) {
        questionsDropped.push(`${id} #${index}`);
        return [];
      }
      return [
        {
          conversation: id,
          index,
          question: text(qa, 'question', where),
          category: category as LocomoCategory,
          evidence: [...evidence],
        },
      ];
    });
    return { id, turns, questions };
  });
  return {
    conversations,
    repairs: { split, rewritten, dropped, questionsDropped },
    adversarial,
  };
}

const DATA = new URL('./locomo/locomo-dev.json', import.meta.url);

/** The five conversations of bench/search/locomo/locomo-dev.json. */
export function loadLocomo(): LocomoSet {
  return parseLocomo(JSON.parse(readFileSync(DATA, 'utf8')));
}
