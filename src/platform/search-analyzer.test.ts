import { expect, test } from 'vitest';
import { analyzeQuery, foldText, indexTerms, matchesWord } from './search-analyzer.ts';

test.each([
  ['Café au lait', 'cafe au lait'],
  ['naïve CRÈME brûlée', 'naive creme brulee'],
  ['МОСКВА Москва', 'москва москва'],
  ['Ελληνικά ΟΔΟΣ οδός', 'ελληνικα οδοσ οδοσ'],
  ['İstanbul Straße', 'istanbul strasse'],
  ['ﬁne ＡＢＣ ①', 'fine abc 1'],
  ['हिन्दी भाषा', 'हिन्दी भाषा'],
])('folds %j to %j', (text, folded) => {
  expect(foldText(text)).toBe(folded);
});

test.each([
  // English: Porter's stems, the written form kept beside each; function words left out.
  ['I camped by the lakes', 'camped camp lakes lake'],
  ['[8 May 2023] Caroline: I went camping', '8 2023 caroline carolin went camping camp'],
  // The language is the one whose function words the text uses most.
  ['Préfère les réunions le matin', 'prefere prefer reunions reunion matin'],
  ['Trinkt morgens Kaffee ohne Zucker', 'trinkt morgens morg kaffee kaffe zucker zuck'],
  ['Entrena para el maratón de Madrid', 'entrena entren maraton madrid madr'],
  // Cyrillic words are Russian's, whatever the rest.
  ['Пьёт кофе без сахара', 'пьет кофе коф сахара сахар'],
  // No language's stems for other scripts, nor for words with digits.
  ['हिन्दी भाषा k8s', 'हिन्दी भाषा k8s'],
  // A text of function words only keeps them, as written.
  ['The Who', 'the who'],
  // A stretch of function words goes whole, its joined form too.
  ["I don't mind", 'mind'],
])('stems and function words: %j', (text, terms) => {
  expect(indexTerms(text)).toBe(terms);
});

test.each([
  ['TICKET-4521 is open', 'ticket 4521 ticket4521 open'],
  ['release v2.3.1', 'release releas v2 3 1 v231'],
  ['k8s', 'k8s'],
  // Single letters do not choose a language: `a/b` keeps `b` and the joined `ab`.
  ['(see: a/b)', 'see b ab'],
  ['"quoted" NOT -x * ( )', 'quoted quot x'],
])('keeps identifiers findable: %j', (text, terms) => {
  expect(indexTerms(text)).toBe(terms);
});

test.each([
  ['東京で寿司を食べた', '東京 京で で寿 寿司 司を を食 食べ べた'],
  ['寿', '寿'],
  ['한국어', '한국 국어'],
  ['ｶﾀｶﾅ', 'カタ タカ カナ'],
  ['ภาษาไทย', 'ภา าษ ษา าไ ไท ทย'],
  ['東京tower', '東京 tower'],
  ['日本、東京', '日本 東京'],
])('text without spaces as character pairs: %j', (text, terms) => {
  expect(indexTerms(text)).toBe(terms);
});

test('only letters, digits and marks come out, whatever goes in', () => {
  const odd = '"\'\\ ();:*^-+~|&!<>{}[]@#$%\u0000\u200b\ud83d\ude00 NEAR AND OR';
  expect(indexTerms(odd)).toBe('near');
  expect(analyzeQuery('*** ---')).toEqual({ groups: [] });
});

test('a query: its groups, with the joined form of a punctuated identifier', () => {
  expect(analyzeQuery('TICKET-4521 東京で')).toEqual({
    groups: [
      { words: [{ forms: ['ticket'] }, { forms: ['4521'] }], joined: { forms: ['ticket4521'] } },
      { words: [{ forms: ['東京'] }, { forms: ['京で'], prefix: '京で' }] },
    ],
  });
});

test('a question: its function words out, each word as written and as its stem', () => {
  expect(analyzeQuery('What does the payments team own?')).toEqual({
    groups: [{ words: [{ forms: ['payments', 'payment'] }] }, { words: [{ forms: ['team'] }] }],
  });
  // Only function words: they are what there is.
  expect(analyzeQuery('the who')).toEqual({
    groups: [{ words: [{ forms: ['the'] }] }, { words: [{ forms: ['who'], prefix: 'who' }] }],
  });
});

test('the last word is a prefix while it may still be typed, not once the text ends after it', () => {
  expect(analyzeQuery('idempotency ke').groups.at(-1)).toEqual({
    words: [{ forms: ['ke'], prefix: 'ke' }],
  });
  expect(analyzeQuery('idempotency key ').groups.at(-1)).toEqual({
    words: [{ forms: ['key', 'kei'] }],
  });
  expect(analyzeQuery('idempotency key?').groups.at(-1)).toEqual({
    words: [{ forms: ['key', 'kei'] }],
  });
  // The prefix is the word as typed; its stem is matched whole.
  expect(analyzeQuery('camping').groups).toEqual([
    { words: [{ forms: ['camping', 'camp'], prefix: 'camping' }] },
  ]);
});

test('a word matches its forms, and the typed prefix', () => {
  const [word] = analyzeQuery('camping').groups[0]?.words ?? [];
  if (!word) throw new Error('no word');
  expect(['camp', 'camping', 'campings', 'camped', 'cam'].map((t) => matchesWord(word, t))).toEqual(
    [true, true, true, false, false],
  );
});

test('long words are cut, long queries too', () => {
  expect(indexTerms('a'.repeat(300))).toBe('a'.repeat(100));
  expect(analyzeQuery(Array.from({ length: 50 }, (_, i) => `w${i}`).join(' ')).groups).toHaveLength(
    32,
  );
});

test('folding is the same at write and at query time', () => {
  expect(foldText('ＣＡＦÉ')).toBe(foldText('cafe'));
});
