/**
 * Requests made anew for each one sent, declared as data: the scenarios (scenarios.ts) name a
 * sequence, the load generator's process (load-process.ts) makes its requests. A function could
 * not cross the process boundary between them.
 */
import { memoryText } from './memory-text.ts';

export type Sequence =
  /**
   * POST bodies that each add a new memory, `memoryText(name, n)`: distinct content, so every
   * add is an insert (201), never a fold (200). Named after the scenario: several may add to one
   * store.
   */
  | { readonly generator: 'new-memory'; readonly name: string }
  /**
   * PATCHes of `ids` in turn (the request's path, then `/id`), each a new revision of the
   * memory's seeded text (`memoryText(store, index)`).
   */
  | {
      readonly generator: 'revise-round-robin';
      readonly store: string;
      readonly ids: readonly string[];
    };

/** What a sequence sets on its `n`-th request (from 0); the rest is the request's own. */
export interface Made {
  readonly path?: string;
  readonly body: string;
}

/** The `n`-th request of `sequence`, on a request to `path`. */
export function makeRequest(sequence: Sequence, n: number, path: string): Made {
  switch (sequence.generator) {
    case 'new-memory':
      return {
        body: JSON.stringify({ content: memoryText(sequence.name, n), category: 'preference' }),
      };
    case 'revise-round-robin': {
      const index = n % sequence.ids.length;
      return {
        path: `${path}/${sequence.ids[index]}`,
        body: JSON.stringify({ content: `${memoryText(sequence.store, index)} Revision ${n}.` }),
      };
    }
  }
}
