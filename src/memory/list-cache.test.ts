import { expect, test } from 'vitest';
import { createListCache } from './list-cache.ts';

const body = (chars: number, mark = 'x') => mark.repeat(chars);

test('a body is served only for the counter it was built at', () => {
  const cache = createListCache({ maxBytes: 1000, maxBodyBytes: 1000 });
  cache.set('a', 3, body(10));
  expect(cache.get('a', 3)).toBe(body(10));
  expect(cache.get('a', 4)).toBeUndefined();
  expect(cache.get('a', 2)).toBeUndefined();
  expect(cache.get('b', 3)).toBeUndefined();
});

test('a newer counter replaces an older one, never the other way round', () => {
  const cache = createListCache({ maxBytes: 1000, maxBodyBytes: 1000 });
  cache.set('a', 5, body(10, 'n'));
  cache.set('a', 4, body(10, 'o'));
  expect(cache.get('a', 5)).toBe(body(10, 'n'));
  expect(cache.get('a', 4)).toBeUndefined();
  cache.set('a', 6, body(10, 'm'));
  expect(cache.get('a', 6)).toBe(body(10, 'm'));
  expect(cache.get('a', 5)).toBeUndefined();
});

test('bounded in bytes: the least recently used go first; an oversized body is not kept', () => {
  // 100 bytes: room for two bodies of 20 characters (40 bytes each), not three.
  const cache = createListCache({ maxBytes: 100, maxBodyBytes: 60 });
  cache.set('a', 1, body(20));
  cache.set('b', 1, body(20));
  expect(cache.get('a', 1)).toBeDefined(); // a is now the most recently used
  cache.set('c', 1, body(20));
  expect(cache.get('b', 1)).toBeUndefined();
  expect(cache.get('a', 1)).toBeDefined();
  expect(cache.get('c', 1)).toBeDefined();
  cache.set('d', 1, body(31)); // 62 bytes: over maxBodyBytes
  expect(cache.get('d', 1)).toBeUndefined();
  expect(cache.get('a', 1)).toBeDefined();
  // Replacing a body frees its bytes: a's new body (60) fits beside c's (40) in 100.
  cache.set('a', 2, body(30));
  expect(cache.get('a', 2)).toBe(body(30));
  expect(cache.get('c', 1)).toBe(body(20));
  // Two bytes more would not: a, now the least recently used, goes.
  cache.set('e', 1, body(1));
  expect(cache.get('a', 2)).toBeUndefined();
  expect(cache.get('c', 1)).toBe(body(20));
  expect(cache.get('e', 1)).toBe(body(1));
});
