import { describe, expect, it } from 'vitest';
import { makeRequest } from './load-sequences.ts';
import { memoryText } from './memory-text.ts';

describe('load sequences', () => {
  it('adds a distinct memory with each request, named after the scenario', () => {
    const sequence = { generator: 'new-memory', name: 'post' } as const;
    const bodies = [0, 1, 2].map((n) => makeRequest(sequence, n, '/m').body);
    expect(new Set(bodies).size).toBe(3);
    expect(JSON.parse(bodies[1] ?? '')).toEqual({
      content: memoryText('post', 1),
      category: 'preference',
    });
    expect(makeRequest(sequence, 0, '/m').path).toBeUndefined();
  });

  it('revises the ids in turn, each time with new content', () => {
    const sequence = { generator: 'revise-round-robin', store: 'edit', ids: ['a', 'b'] } as const;
    const made = [0, 1, 2].map((n) => makeRequest(sequence, n, '/m'));
    expect(made.map((m) => m.path)).toEqual(['/m/a', '/m/b', '/m/a']);
    expect(JSON.parse(made[2]?.body ?? '')).toEqual({
      content: `${memoryText('edit', 0)} Revision 2.`,
    });
  });
});
