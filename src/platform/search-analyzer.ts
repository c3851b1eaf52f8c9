/**
 * Text → search terms, the one analysis both engines index and query with: SQLite's FTS5 and
 * PostgreSQL's full text only ever see its output (lowercase letters and digits separated by
 * spaces), so they find the same memories. Neither engine's own tokenizer folds diacritics and
 * case in every script, keeps identifiers like `TICKET-4521` or `v2.3.1` whole, or splits text
 * written without spaces (Japanese, Chinese, Thai) into findable words; this does all three.
 *
 * Here, not in the memory feature, because the migration that indexes existing memories uses it
 * too, and the database layer imports no feature.
 */

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

/**
 * One stretch of text between spaces (`TICKET-4521`, `v2.3.1`, `東京で`): the terms of each of
 * its words, and, when punctuation joins several words, the words run together as one more term,
 * so that an identifier is found whether it is typed with its punctuation, without, or spaced.
 */
export interface TermGroup {
  readonly terms: readonly string[];
  readonly joined?: string;
}

function groups(text: string): TermGroup[] {
  const found: TermGroup[] = [];
  for (const chunk of foldText(text).split(/\s+/u)) {
    const words = chunk.match(WORD);
    if (!words) continue;
    const terms = words.flatMap(wordTerms);
    const joinable = words.length > 1 && !words.some((word) => SPACELESS.test(word));
    found.push(joinable ? { terms, joined: cut(words.join('')) } : { terms });
  }
  return found;
}

/** What is indexed for a text: its terms, separated by spaces, in the order they occur. */
export function indexTerms(text: string): string {
  return groups(text)
    .flatMap((group) => (group.joined === undefined ? group.terms : [...group.terms, group.joined]))
    .join(' ');
}

/**
 * A query as terms: every group must match (its words, or its joined form), and the last term
 * typed matches as a prefix (`kuber` finds `kubernetes`). Empty when the text has no letter or
 * digit at all.
 */
export interface AnalyzedQuery {
  readonly groups: readonly TermGroup[];
}

export function analyzeQuery(text: string): AnalyzedQuery {
  return { groups: groups(text).slice(0, MAX_QUERY_GROUPS) };
}
