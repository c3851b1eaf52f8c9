import { randomBytes } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { createSealer } from './sealing.ts';

describe('sealing', () => {
  const key = randomBytes(32);
  const sealer = createSealer(key);
  const value = { items: [{ type: 'reasoning.text', text: 'Think', signature: 'sig' }] };

  test('what one sealer seals, another with the same key opens, for the same purpose only', async () => {
    const token = await sealer.seal('reasoning', value);
    expect(token).not.toContain('Think');
    expect(await createSealer(Buffer.from(key)).open('reasoning', token)).toEqual(value);
    expect(await sealer.open('compaction', token)).toBeUndefined();
  });

  test('an edited, foreign or malformed token opens to nothing', async () => {
    const token = await sealer.seal('compaction', value);
    const parts = token.split('.');
    const body = parts[3] ?? '';
    const edited = [
      ...parts.slice(0, 3),
      `${body[0] === 'A' ? 'B' : 'A'}${body.slice(1)}`,
      parts[4],
    ];
    expect(await sealer.open('compaction', edited.join('.'))).toBeUndefined();
    const foreign = await createSealer(randomBytes(32)).seal('compaction', value);
    expect(await sealer.open('compaction', foreign)).toBeUndefined();
    for (const junk of ['', 'abc', 'a.b.c.d.e', `${token}x`]) {
      expect(await sealer.open('compaction', junk)).toBeUndefined();
    }
  });

  test('a key of the wrong size is refused', () => {
    expect(() => createSealer(randomBytes(16))).toThrow('32 bytes');
  });
});
