import { stemmer as dutchStem } from '@orama/stemmers/dutch';
import { stemmer as frenchStem } from '@orama/stemmers/french';
import { stemmer as germanStem } from '@orama/stemmers/german';
import { stemmer as italianStem } from '@orama/stemmers/italian';
import { stemmer as portugueseStem } from '@orama/stemmers/portuguese';
import { stemmer as russianStem } from '@orama/stemmers/russian';
import { stemmer as spanishStem } from '@orama/stemmers/spanish';
import { stopwords as dutchStop } from '@orama/stopwords/dutch';
import { stopwords as englishStop } from '@orama/stopwords/english';
import { stopwords as frenchStop } from '@orama/stopwords/french';
import { stopwords as germanStop } from '@orama/stopwords/german';
import { stopwords as italianStop } from '@orama/stopwords/italian';
import { stopwords as portugueseStop } from '@orama/stopwords/portuguese';
import { stopwords as russianStop } from '@orama/stopwords/russian';
import { stopwords as spanishStop } from '@orama/stopwords/spanish';
import { stemmer as englishStem } from 'stemmer';

/**
 * The languages whose words the analyzer reduces to their stems and whose function words it
 * leaves out: Snowball's stemmers (as ported by Orama) and stop-word lists, but for English
 * Porter's stemmer from `stemmer`, whose port is exact where Orama's English one is not
 * (`adoption` → `adop`, `conditional` → `condition`). The versions are pinned: a stemmer that
 * changed would give stored memories other terms than new queries.
 */
export interface Language {
  readonly name: string;
  /** The stem of a word already folded (lower case, accents off): the form memories share. */
  readonly stem: (word: string) => string;
  /** Its function words, folded as the analyzer folds words. */
  readonly stopWords: ReadonlySet<string>;
}

/**
 * Folding is the analyzer's (`foldText`), passed in: this module knows languages, not text.
 * A stop word written with an apostrophe (`don't`) is kept as the analyzer would read it: its
 * pieces (`don`, `t`) and their join (`dont`).
 */
function language(
  name: string,
  stem: (word: string) => string,
  stopWords: readonly string[],
  fold: (text: string) => string,
): Language {
  const words = new Set<string>();
  for (const entry of stopWords) {
    const folded = fold(entry);
    const pieces = folded.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
    for (const piece of pieces) words.add(piece);
    words.add(pieces.join(''));
  }
  return { name, stem: memoized(stem), stopWords: words };
}

/**
 * Stemming costs 1–7 µs a word and a store's words repeat: the stems of the last words seen are
 * kept (cleared whole when full, which is cheap and rare).
 */
function memoized(stem: (word: string) => string): (word: string) => string {
  const known = new Map<string, string>();
  return (word) => {
    const seen = known.get(word);
    if (seen !== undefined) return seen;
    const stemmed = stem(word);
    if (known.size >= 20_000) known.clear();
    known.set(word, stemmed);
    return stemmed;
  };
}

export interface Languages {
  /** Written in Latin letters, in the order a tie between them is settled (English first). */
  readonly latin: readonly Language[];
  /** Written in Cyrillic. */
  readonly cyrillic: Language;
}

export function createLanguages(fold: (text: string) => string): Languages {
  const make = (name: string, stem: (word: string) => string, stop: readonly string[]) =>
    language(name, stem, stop, fold);
  return {
    latin: [
      make('english', englishStem, [...englishStop, 'a']),
      make('french', frenchStem, frenchStop),
      make('german', germanStem, germanStop),
      make('spanish', spanishStem, spanishStop),
      make('italian', italianStem, italianStop),
      make('portuguese', portugueseStem, portugueseStop),
      make('dutch', dutchStem, dutchStop),
    ],
    cyrillic: make('russian', russianStem, russianStop),
  };
}
