import fc from 'fast-check';
import { expect, test } from 'vitest';
import { foldKey, normalizeForFold } from './fold.ts';

test.each([
  ['I like tea.', 'i like tea'],
  ['  I   LIKE\ttea!!?  ', 'i like tea'],
  ['ｉ　like tea', 'i like tea'], // fullwidth letter and ideographic space (NFKC)
  ['Tea. Really.', 'tea. really'],
  ['Is it?!. ', 'is it'],
  ['...', ''],
  ['İstanbul', 'i̇stanbul'], // lower-cased without locale: not the Turkish rule
])('normalizes %j to %j', (input, expected) => {
  expect(normalizeForFold(input)).toBe(expected);
});

test('different words do not fold', () => {
  expect(foldKey('I like tea')).not.toBe(foldKey('I like tea, really'));
});

test('normalization is idempotent and the key depends only on it', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme' }), (s) => {
      const once = normalizeForFold(s);
      expect(normalizeForFold(once)).toBe(once);
      expect(foldKey(once)).toBe(foldKey(s));
    }),
  );
});
