import { expect, test } from 'vitest';
import { analyzeQuery, foldText, indexTerms } from './search-analyzer.ts';

test.each([
  ['Café au lait', 'cafe au lait'],
  ['naïve CRÈME brûlée', 'naive creme brulee'],
  ['МОСКВА Москва', 'москва москва'],
  ['Ελληνικά ΟΔΟΣ οδός', 'ελληνικα οδοσ οδοσ'],
  ['İstanbul Straße', 'istanbul strasse'],
  ['ﬁne ＡＢＣ ①', 'fine abc 1'],
  ['हिन्दी भाषा', 'हिन्दी भाषा'],
])('folds %j to %j', (text, terms) => {
  expect(indexTerms(text)).toBe(terms);
});

test.each([
  ['TICKET-4521 is open', 'ticket 4521 ticket4521 is open'],
  ['release v2.3.1', 'release v2 3 1 v231'],
  ['k8s', 'k8s'],
  ['(see: a/b)', 'see a b ab'],
  ['"quoted" NOT -x * ( )', 'quoted not x'],
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
  expect(indexTerms(odd)).toBe('near and or');
  expect(analyzeQuery('*** ---')).toEqual({ groups: [] });
});

test('a query: its groups, with the joined form of a punctuated identifier', () => {
  expect(analyzeQuery('TICKET-4521 東京で')).toEqual({
    groups: [{ terms: ['ticket', '4521'], joined: 'ticket4521' }, { terms: ['東京', '京で'] }],
  });
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
