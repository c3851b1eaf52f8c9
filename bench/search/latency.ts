/**
 * The search part's load scenarios: searches of a store of 100,000 memories (search/corpus.ts)
 * against GET one memory of that store, GET one beside searches, and adds with and without the
 * search index.
 */
import { scoredWords } from '../../src/memory/search-ranking.ts';
import { analyzeQuery, indexTerms, matchesWord } from '../../src/platform/search-analyzer.ts';
import { expectCall, storeHeaders, storeOf } from '../api-client.ts';
import { getOneOf, postTo, type Scenario } from '../scenarios.ts';
import { corpusTexts } from './corpus.ts';
import { SEARCH_LIMIT } from './quality-app.ts';

const STORE = 'search';
/** The `search-100k` server's store holds this many (scenarios.ts). */
export const CORPUS_SIZE = 100_000;

/** One kind of search, as typed. */
export interface SearchQuery {
  readonly name: string;
  readonly title: string;
  readonly q: string;
}

export const SEARCH_QUERIES: readonly SearchQuery[] = [
  { name: 'search-common', title: 'common word', q: 'team' },
  { name: 'search-rare', title: 'rare word', q: 'kombucha' },
  { name: 'search-identifier', title: 'identifier', q: 'TICKET-4521' },
  { name: 'search-two-words', title: 'two words', q: 'payments team' },
  { name: 'search-prefix', title: 'prefix', q: 'kube' },
  { name: 'search-question', title: 'question (any word)', q: 'what does the payments team own?' },
  { name: 'search-none', title: 'no match', q: 'zyzzyva quokka' },
];

/** How many memories of the corpus a query matches: those holding some word of it. */
export interface Matches {
  readonly count: number;
}

/** What the repository's query matches, counted over the corpus with the same analysis. */
export function countMatches(corpus: readonly ReadonlySet<string>[], q: string): Matches {
  const words = scoredWords(analyzeQuery(q));
  const count = corpus.filter((terms) =>
    [...terms].some((term) => words.some((word) => matchesWord(word, term))),
  ).length;
  return { count };
}

/** Each memory's terms, as the store indexed them. */
export function corpusTerms(): ReadonlySet<string>[] {
  return corpusTexts(CORPUS_SIZE).map((text) => new Set(indexTerms(text).split(' ')));
}

/** The baseline of the searches: GET one memory of the same store, on the same server. */
export const SEARCH_GET_ONE = getOneOf(
  { name: 'search-get-one', title: 'GET one memory (same store)' },
  'search-100k',
  STORE,
);

/**
 * GET /api/v1/memory/search for `query`; prepare checks that the answer holds no more memories
 * than the corpus says it matches (up to the limit), and some when it matches any. In a store
 * this large a common word is not looked up beside a rarer one (docs/design.md §3.4.1), so the
 * answer may hold fewer than the limit.
 */
export function searchScenario(query: SearchQuery, matches: Matches): Scenario {
  return {
    name: query.name,
    title: query.title,
    servers: ['search-100k'],
    async prepare(servers) {
      const server = await servers.mnemo('search-100k');
      const store = storeOf(server, STORE);
      const path = `/api/v1/memory/search?q=${encodeURIComponent(query.q)}&limit=${SEARCH_LIMIT}`;
      const body = (await expectCall(200, server, store, 'GET', path)).json() as {
        memories: unknown[];
      };
      const most = Math.min(SEARCH_LIMIT, matches.count);
      const answered = body.memories.length;
      if (answered > most || (most > 0 && answered === 0)) {
        throw new Error(
          `${query.name}: ${JSON.stringify(query.q)} answered ${answered} memories, of at most ${most}`,
        );
      }
      return {
        origin: server.origin,
        requests: [{ method: 'GET', path, headers: storeHeaders(server, store) }],
        expectStatus: 200,
      };
    },
  };
}

/** The heavy question, asked beside GET one. */
export const BESIDE_QUERY = SEARCH_QUERIES.find(
  (query) => query.name === 'search-question',
) as SearchQuery;
/** Connections asking `BESIDE_QUERY` all the while GET one is measured beside them. */
export const SEARCHING_CONNECTIONS = 4;
/** GET one's p99 beside the searches, at most this many times its p99 alone. */
export const BESIDE_AIM = 3;

/**
 * GET one memory of the store, one connection, while `SEARCHING_CONNECTIONS` others ask the
 * heavy question of the same server: what a search does to the requests beside it.
 */
export function getOneBesideSearches(matches: Matches): Scenario {
  const search = searchScenario(BESIDE_QUERY, matches);
  return {
    name: 'search-get-one-beside-searches',
    title: `GET one memory, beside ${SEARCHING_CONNECTIONS} connections searching`,
    servers: ['search-100k'],
    async prepare(servers) {
      const plan = await SEARCH_GET_ONE.prepare(servers);
      const searches = await search.prepare(servers);
      if (searches.origin !== plan.origin) throw new Error('the searches go to another server');
      return {
        ...plan,
        beside: [
          {
            requests: searches.requests,
            expectStatus: searches.expectStatus,
            connections: SEARCHING_CONNECTIONS,
          },
        ],
      };
    },
  };
}

/** How many times the adds with and without the index alternate: their medians are compared. */
export const ADD_ROUNDS = 3;

export const ADD_VARIANTS = [
  { kind: 'add-indexed', title: 'with the search index' },
  { kind: 'add-unindexed', title: 'without it' },
] as const;

export const addScenarioName = (kind: string, round: number) => `${kind}-${round}`;

/**
 * Adds, each a new memory, to an empty store with its search index and to one without, in
 * alternate rounds, so that a change of the machine's load falls on both.
 */
export const ADD_SCENARIOS: readonly Scenario[] = Array.from({ length: ADD_ROUNDS }, (_, r) =>
  ADD_VARIANTS.map(({ kind, title }) =>
    postTo(
      { name: addScenarioName(kind, r + 1), title: `POST add, ${title} (round ${r + 1})` },
      kind,
    ),
  ),
).flat();
