import { describe, expect, it } from 'vitest';
import { estimateTokens, splitJson, splitWords } from './scripted-text.ts';

describe('scripted text', () => {
  it('estimates ceil(characters / 4) tokens', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('Hello there')).toBe(3);
    expect(estimateTokens('abcd')).toBe(1);
  });

  it('splits text into words that join back exactly', () => {
    for (const text of ['Hi, how are you?', '  leading and trailing  ', 'one\n\ntwo\tthree']) {
      const pieces = splitWords(text);
      expect(pieces.join('')).toBe(text);
      expect(pieces.every((piece) => piece.trim() !== '')).toBe(true);
    }
    expect(splitWords('Hi, how are you?')).toEqual(['Hi, ', 'how ', 'are ', 'you?']);
  });

  it('keeps a text without words as one piece', () => {
    expect(splitWords('')).toEqual(['']);
    expect(splitWords('   ')).toEqual(['   ']);
  });

  it('cuts JSON into pieces of a fixed size, anywhere', () => {
    expect(splitJson('{"city":"Paris"}')).toEqual(['{"city":', '"Paris"}']);
    expect(splitJson('{"a":1}', 3)).toEqual(['{"a', '":1', '}']);
    expect(splitJson('')).toEqual([]);
  });
});
