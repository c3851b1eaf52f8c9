/**
 * The labelled set is the yardstick of search quality: these checks keep it one, so that a
 * figure the bench prints is about the search, not about a broken label.
 */
import { describe, expect, test } from 'vitest';
import { foldKey } from '../../src/memory/fold.ts';
import { CATEGORIES } from '../../src/memory/memory.schemas.ts';
import { foldText } from '../../src/platform/search-analyzer.ts';
import { MEMORIES, QUERIES, QUERY_KINDS, USERS } from './labelled-set.ts';

const byKey = new Map(MEMORIES.map((memory) => [memory.key, memory]));
/**
 * A text's words as written, folded (case, accents) and nothing more: what the set's labels
 * speak of, whatever the analyzer makes of them.
 */
const termsOf = (text: string) =>
  new Set(foldText(text).match(/[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu) ?? []);

/** Words that carry no content: sharing them does not make a query lexical. */
const FUNCTION_WORDS = new Set(
  'a an the of to in on at for from by with and or is am are be my me i her his she he we our what which who when where how do does that this'.split(
    ' ',
  ),
);

describe('the memories', () => {
  test('a few hundred, over at least four members, each with a store of their own', () => {
    expect(MEMORIES.length).toBeGreaterThanOrEqual(250);
    expect(USERS.length).toBeGreaterThanOrEqual(4);
    for (const user of USERS) {
      expect(MEMORIES.filter((m) => m.user === user).length, user).toBeGreaterThanOrEqual(40);
    }
  });

  test('keys are unique and name their store', () => {
    expect(byKey.size).toBe(MEMORIES.length);
    for (const memory of MEMORIES) expect(memory.key.startsWith(`${memory.user}/`)).toBe(true);
  });

  test('no two memories of one store fold into one when added', () => {
    for (const user of USERS) {
      const keys = MEMORIES.filter((m) => m.user === user).map((m) => foldKey(m.content));
      expect(new Set(keys).size, user).toBe(keys.length);
    }
  });

  test('every category of the spec is used, and only those, some memories having none', () => {
    const used = new Set(MEMORIES.map((m) => m.category));
    expect([...used].filter((c) => c !== undefined).sort()).toEqual([...CATEGORIES].sort());
    expect(used.has(undefined)).toBe(true);
  });
});

describe('the queries', () => {
  test('at least 120, and at least 15 of every kind', () => {
    expect(QUERIES.length).toBeGreaterThanOrEqual(120);
    for (const kind of QUERY_KINDS) {
      expect(QUERIES.filter((q) => q.kind === kind).length, kind).toBeGreaterThanOrEqual(15);
    }
  });

  test('no member asks the same query twice', () => {
    const asked = QUERIES.map((q) => `${q.user}\u0000${q.q}`);
    expect(new Set(asked).size).toBe(asked.length);
  });

  test.each(QUERIES)('$user: $q — answers exist, in the asker’s store, once each', (query) => {
    expect(query.answers.length).toBeGreaterThan(0);
    // At most five, so that a perfect top 5 holds every answer (recall@5 can reach 1).
    expect(query.answers.length).toBeLessThanOrEqual(5);
    expect(new Set(query.answers).size).toBe(query.answers.length);
    for (const key of query.answers) {
      const memory = byKey.get(key);
      expect(memory, `${key} does not exist`).toBeDefined();
      expect(memory?.user, `${key} is not in ${query.user}'s store`).toBe(query.user);
    }
  });

  test.each(
    QUERIES.filter((q) => q.kind === 'paraphrase'),
  )('paraphrase $q shares no content word with its answers', (query) => {
    const asked = [...termsOf(query.q)].filter((term) => !FUNCTION_WORDS.has(term));
    for (const key of query.answers) {
      const held = termsOf(byKey.get(key)?.content ?? '');
      expect(
        asked.filter((term) => held.has(term)),
        key,
      ).toEqual([]);
    }
  });

  test.each(
    QUERIES.filter((q) => q.kind === 'keyword'),
  )('keyword query $q: every word is in every answer', (query) => {
    for (const key of query.answers) {
      const held = termsOf(byKey.get(key)?.content ?? '');
      expect(
        [...termsOf(query.q)].filter((term) => !held.has(term)),
        key,
      ).toEqual([]);
    }
  });

  test.each(
    QUERIES.filter((q) => q.kind === 'question'),
  )('question $q has words that its answers do not', (query) => {
    for (const key of query.answers) {
      const held = termsOf(byKey.get(key)?.content ?? '');
      expect(
        [...termsOf(query.q)].some((term) => !held.has(term)),
        key,
      ).toBe(true);
    }
  });

  test.each(
    QUERIES.filter((q) => q.kind === 'prefix'),
  )('prefix query $q ends in a word that an answer goes on from', (query) => {
    // Letters and digits only (the analyzer's words), so it reads as itself in a pattern.
    const last =
      foldText(query.q)
        .match(/[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu)
        ?.at(-1) ?? '';
    const goesOn = new RegExp(`${last}[\\p{L}\\p{N}]`, 'u');
    expect(query.answers.some((key) => goesOn.test(foldText(byKey.get(key)?.content ?? '')))).toBe(
      true,
    );
  });
});
