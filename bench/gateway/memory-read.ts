import { MEMORY_HEADER, RECALLED_HEADER } from '../../src/gateway/memory/memory-switch.ts';
import { indexTerms } from '../../src/platform/search-analyzer.ts';
import { type LoadRequest, measure } from '../load.ts';
import { corpusTexts } from '../search/corpus.ts';
import { countMatches } from '../search/latency.ts';
import { measureWithCpu } from './measured-run.ts';
import type { GatewayProcess } from './processes.ts';
import {
  attempt,
  MEMORY_QUESTIONS,
  type MemoryRead,
  RECALL_MEMORIES,
  type Result,
} from './results.ts';
import { chatBody, type Endpoint } from './stream-client.ts';

/**
 * What memory recall adds to a chat call: mnemo's non-streamed /v1/chat/completions at one
 * connection, by a key whose owner has `RECALL_MEMORIES` memories, asking `MEMORY_QUESTIONS` in
 * turn, once with `x-mnemo-memory: read` and once without (the key's own setting: memory off).
 * Same key, same bodies, same process; both warm-ups first, then the two measured runs of the
 * same length back to back, so the pair is seconds apart and only the header differs.
 */

const CONNECTIONS = 1;

interface Options {
  readonly seconds: number;
  readonly warmup: number;
  readonly log: (line: string) => void;
}

/** Each question as the simulator answers it: `You said: ` and the last user message. */
const answerTo = (question: string) => `You said: ${question}`;

const headersOf = (endpoint: Endpoint, read: boolean): Record<string, string> => ({
  ...endpoint.headers,
  'content-type': 'application/json',
  ...(read ? { [MEMORY_HEADER]: 'read' } : {}),
});

function requests(endpoint: Endpoint, read: boolean): LoadRequest[] {
  return MEMORY_QUESTIONS.map((question) => ({
    method: 'POST',
    path: endpoint.path,
    headers: headersOf(endpoint, read),
    body: chatBody(endpoint.model, question, false),
  }));
}

/** One call; the ids of `x-mnemo-memories`, or undefined when the answer has no such header. */
async function ask(endpoint: Endpoint, question: string, read: boolean) {
  const response = await fetch(`${endpoint.origin}${endpoint.path}`, {
    method: 'POST',
    headers: headersOf(endpoint, read),
    body: chatBody(endpoint.model, question, false),
  });
  const text = await response.text();
  const body = JSON.parse(text || '{}') as { choices?: Array<{ message?: { content?: string } }> };
  if (response.status !== 200 || body.choices?.[0]?.message?.content !== answerTo(question)) {
    throw new Error(`memory read: ${response.status} ${text.slice(0, 300)}`);
  }
  return response.headers.get(RECALLED_HEADER)?.split(',').filter(Boolean);
}

/**
 * Before any load, every question once each way: the same answer both ways; with the header,
 * at least one memory recalled, none twice, and no more than the store holds matches for; without
 * it, no `x-mnemo-memories` at all (nothing was recalled).
 */
async function check(endpoint: Endpoint): Promise<MemoryRead['questions']> {
  const corpus = corpusTexts(RECALL_MEMORIES).map((text) => new Set(indexTerms(text).split(' ')));
  const checked = [];
  for (const question of MEMORY_QUESTIONS) {
    const { count: matches } = countMatches(corpus, question);
    const ids = (await ask(endpoint, question, true)) ?? [];
    if (ids.length === 0 || new Set(ids).size !== ids.length || ids.length > matches) {
      throw new Error(
        `memory read: "${question}" recalled ${ids.length} memories (${new Set(ids).size} distinct) where the store has ${matches} matches`,
      );
    }
    const plain = await ask(endpoint, question, false);
    if (plain !== undefined) {
      throw new Error(`memory read: "${question}" without the header recalled ${plain.length}`);
    }
    checked.push({ question, matches, recalled: ids.length });
  }
  return checked;
}

export function runMemoryRead(
  endpoint: Endpoint,
  gateway: GatewayProcess | undefined,
  simulator: GatewayProcess,
  options: Options,
): Promise<Result<MemoryRead>> {
  const load = (read: boolean, seconds: number) => ({
    origin: endpoint.origin,
    requests: requests(endpoint, read),
    expectStatus: 200,
    connections: CONNECTIONS,
    seconds,
  });
  const log = (what: string) =>
    options.log(`gateway: mnemo, memory read on ${RECALL_MEMORIES} memories: ${what}`);
  return attempt(async () => {
    const questions = await check(endpoint);
    if (options.warmup > 0) {
      log(`warm-up ${options.warmup} s without the header, then with it`);
      await measure(load(false, options.warmup));
      await measure(load(true, options.warmup));
    }
    log(`measuring ${options.seconds} s without the header, then ${options.seconds} s with it`);
    const without = await measureWithCpu(load(false, options.seconds), gateway, simulator);
    const read = await measureWithCpu(load(true, options.seconds), gateway, simulator);
    return { memories: RECALL_MEMORIES, questions, without, read };
  });
}
