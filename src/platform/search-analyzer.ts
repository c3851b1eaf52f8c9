/**
 * Text → search terms, the one analysis both engines index and query with: SQLite's FTS5 and
 * PostgreSQL's full text only ever see its output (lowercase letters and digits separated by
 * spaces), so they find the same memories. Neither engine's own tokenizer folds diacritics and
 * case in every script, keeps identifiers like `TICKET-4521` or `v2.3.1` whole, or splits text
 * written without spaces (Japanese, Chinese, Thai) into findable words; this does all three.
 * It also reduces the words of the languages it knows to their stems (`camped`, `camping` →
 * `camp`) and leaves out their function words (`the`, `did`, `where`), which tell nothing of
 * what a memory is about (search-languages.ts).
 *
 * Here, not in the memory feature, because the migration that indexes existing memories uses it
 * too, and the database layer imports no feature.
 */

import { createLanguages, type Language } from './search-languages.ts';

/** Letters and digits, with the marks that belong to them (Devanagari vowel signs, …). */
const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;
/** Scripts written without spaces between words: indexed as overlapping character pairs. */
const SPACELESS_CHAR = `[${[
  'Han',
  'Hiragana',
  'Katakana',
  'Hangul',
  'Thai',
  'Lao',
  'Khmer',
  'Myanmar',
]
  .map((script) => `\\p{scx=${script}}`)
  .join('')}]\\p{M}*`;
const SPACELESS = new RegExp(SPACELESS_CHAR, 'u');
/** One character of such a script with its marks, and a stretch of them. */
const SPACELESS_CHARS = new RegExp(SPACELESS_CHAR, 'gu');
const SPACELESS_STRETCH = new RegExp(`(?:${SPACELESS_CHAR})+`, 'gu');
/**
 * Diacritics are folded where they are accents on a letter (`café` → `cafe`, Greek tonos); in
 * other scripts a mark is part of the letter (Devanagari vowel signs, Japanese dakuten) and stays.
 */
const ACCENTED = /([\p{sc=Latin}\p{sc=Greek}\p{sc=Cyrillic}])\p{M}+/gu;
/** Longer words are cut: PostgreSQL refuses to index a word past 2047 bytes. */
const MAX_TERM_CHARS = 100;
/** A query's words past this many are ignored: no one types more, and each one costs. */
const MAX_QUERY_GROUPS = 32;

/** Compatibility forms unfolded (`ｶ` → `カ`, `ﬁ` → `fi`), accents off, case folded without locale. */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .toLowerCase()
    .normalize('NFKD')
    .replace(ACCENTED, '$1')
    .normalize('NFC')
    .replaceAll('ς', 'σ')
    .replaceAll('ß', 'ss');
}

const cut = (term: string) => (term.length > MAX_TERM_CHARS ? term.slice(0, MAX_TERM_CHARS) : term);

/** The terms of one word: itself, or for text without spaces its character pairs. */
function wordTerms(word: string): string[] {
  if (!SPACELESS.test(word)) return [cut(word)];
  const terms: string[] = [];
  let last = 0;
  const other = (end: number) => {
    const rest = word.slice(last, end);
    if (rest !== '') terms.push(cut(rest));
  };
  for (const match of word.matchAll(SPACELESS_STRETCH)) {
    other(match.index);
    const chars = match[0].match(SPACELESS_CHARS) ?? [];
    if (chars.length === 1) terms.push(chars[0] as string);
    for (let i = 0; i + 1 < chars.length; i++) terms.push(`${chars[i]}${chars[i + 1]}`);
    last = match.index + match[0].length;
  }
  other(word.length);
  return terms;
}

const LANGUAGES = createLanguages(foldText);
/** Each function word of a Latin-script language, with the languages (their places) it is one of. */
const LATIN_STOP_WORDS = new Map<string, number[]>();
LANGUAGES.latin.forEach((language, at) => {
  for (const word of language.stopWords) {
    LATIN_STOP_WORDS.set(word, [...(LATIN_STOP_WORDS.get(word) ?? []), at]);
  }
});
const LATIN = /\p{sc=Latin}/u;
const CYRILLIC = /\p{sc=Cyrillic}/u;
const DIGIT = /\p{N}/u;
/** Text ends with a letter, digit or mark: its last word may still be being typed. */
const OPEN_END = /[\p{L}\p{N}\p{M}]$/u;

/** One word as read: its folded form, and what its language makes of it. */
interface Word {
  readonly surface: string;
  /** Its stem, when its language has one and it differs from the word. */
  readonly stem?: string;
  /** A function word of its language. */
  readonly stop: boolean;
}

/**
 * One stretch of text between spaces (`TICKET-4521`, `v2.3.1`, `東京で`): its words, and, when
 * punctuation joins several words, the words run together as one more term, so that an
 * identifier is found whether it is typed with its punctuation, without, or spaced.
 */
interface Chunk {
  readonly words: readonly Word[];
  readonly joined?: string;
  /** Made of function words only (`the`, `don't`): says nothing of its own. */
  readonly stop: boolean;
}

/** The folded words of each stretch between spaces, before any language is applied. */
function stretches(text: string): { words: string[]; joinable: boolean }[] {
  const found: { words: string[]; joinable: boolean }[] = [];
  const folded = foldText(text);
  // Most text has no word of a spaceless script: its words are then their own terms.
  const spaceless = SPACELESS.test(folded);
  for (const chunk of folded.split(/\s+/u)) {
    const words = chunk.match(WORD);
    if (!words) continue;
    if (!spaceless) {
      found.push({ words: words.map(cut), joinable: words.length > 1 });
      continue;
    }
    const joinable = words.length > 1 && !words.some((word) => SPACELESS.test(word));
    found.push({ words: words.flatMap(wordTerms), joinable });
  }
  return found;
}

/**
 * The language of a text's words in Latin letters: the one of which it uses the most function
 * words (`les`, `ohne`, `the`), English when none is used or on a tie with it. A memory is short:
 * its function words tell its language more surely than letter statistics would, at no cost.
 * Single letters are not counted: some lists name every letter (`a/b` is no Spanish).
 */
function latinLanguage(words: readonly string[]): Language {
  const counts = new Array<number>(LANGUAGES.latin.length).fill(0);
  for (const word of words) {
    if (word.length < 2) continue;
    for (const at of LATIN_STOP_WORDS.get(word) ?? []) counts[at] = (counts[at] ?? 0) + 1;
  }
  let best = 0;
  for (let at = 1; at < counts.length; at++) {
    if ((counts[at] ?? 0) > (counts[best] ?? 0)) best = at;
  }
  return LANGUAGES.latin[best] as Language;
}

function readWord(word: string, latin: Language): Word {
  const language = DIGIT.test(word)
    ? undefined
    : LATIN.test(word)
      ? latin
      : CYRILLIC.test(word)
        ? LANGUAGES.cyrillic
        : undefined;
  if (!language) return { surface: word, stop: false };
  const stop = language.stopWords.has(word);
  const stem = cut(language.stem(word));
  return stem === word || stem === '' ? { surface: word, stop } : { surface: word, stem, stop };
}

function chunks(text: string): Chunk[] {
  const found = stretches(text);
  const latin = latinLanguage(found.flatMap((stretch) => stretch.words));
  return found.map(({ words: surfaces, joinable }) => {
    const words = surfaces.map((surface) => readWord(surface, latin));
    const joined = joinable ? cut(surfaces.join('')) : undefined;
    const stop =
      words.every((word) => word.stop) || (joined !== undefined && readWord(joined, latin).stop);
    return joined === undefined ? { words, stop } : { words, joined, stop };
  });
}

/**
 * The chunks a text is known by: those that say something, or, for a text made of function
 * words only (`The Who`), every one of them.
 */
function telling(all: readonly Chunk[]): { chunks: readonly Chunk[]; dropStops: boolean } {
  const kept = all.filter((chunk) => !chunk.stop);
  return kept.length > 0 ? { chunks: kept, dropStops: true } : { chunks: all, dropStops: false };
}

/**
 * What is indexed for a text: for each word that is not a function word, the word as written
 * (folded) and its stem when it differs, then a stretch's joined form; separated by spaces, in
 * the order they occur. The written form keeps prefixes and other languages' memories findable;
 * the stem finds the other forms of the word.
 */
export function indexTerms(text: string): string {
  const { chunks: kept, dropStops } = telling(chunks(text));
  const terms: string[] = [];
  for (const chunk of kept) {
    for (const word of chunk.words) {
      if (dropStops && word.stop) continue;
      terms.push(word.surface);
      if (word.stem !== undefined && dropStops) terms.push(word.stem);
    }
    if (chunk.joined !== undefined) terms.push(chunk.joined);
  }
  return terms.join(' ');
}

/**
 * A word of a query: it matches an indexed term equal to one of its forms, or, for the word
 * still being typed, one that starts with `prefix`.
 */
export interface QueryWord {
  readonly forms: readonly string[];
  readonly prefix?: string;
}

/** A stretch of the query: its words, and the joined form when punctuation joined them. */
export interface QueryGroup {
  readonly words: readonly QueryWord[];
  readonly joined?: QueryWord;
}

/**
 * A query as the words that say what it asks: the function words of its language are left out
 * (unless it has nothing else); each word matches its written form or its stem, and the last
 * word, when the text does not end after it (a space, `?`), also what starts with it
 * (`kuber` finds `kubernetes`). Empty when the text has no letter or digit at all.
 */
export interface AnalyzedQuery {
  readonly groups: readonly QueryGroup[];
}

function queryWord(surface: string, stem: string | undefined, prefix: boolean): QueryWord {
  const forms = stem === undefined ? [surface] : [surface, stem];
  return prefix ? { forms, prefix: surface } : { forms };
}

export function analyzeQuery(text: string): AnalyzedQuery {
  const { chunks: kept, dropStops } = telling(chunks(text));
  const limited = kept.slice(0, MAX_QUERY_GROUPS);
  const open = OPEN_END.test(text.trimEnd()) && text === text.trimEnd();
  const groups = limited.map((chunk, g): QueryGroup => {
    const lastGroup = open && g === limited.length - 1;
    const words = chunk.words.filter((word) => !(dropStops && word.stop));
    const last = words.length - 1;
    const group = {
      words: words.map((word, i) =>
        queryWord(word.surface, dropStops ? word.stem : undefined, lastGroup && i === last),
      ),
    };
    return chunk.joined === undefined
      ? group
      : { ...group, joined: queryWord(chunk.joined, undefined, lastGroup) };
  });
  return { groups: groups.filter((group) => group.words.length > 0 || group.joined) };
}

/** Whether an indexed term is one `word` matches. */
export function matchesWord(word: QueryWord, term: string): boolean {
  return word.forms.includes(term) || (word.prefix !== undefined && term.startsWith(word.prefix));
}
