import { expect, test } from 'vitest';
import { csvField, csvLine, fileNameInstant, microUsdDecimal, usageCsvLine } from './usage.csv.ts';

test('fields with a comma, a quote or a line break are quoted, quotes doubled (RFC 4180)', () => {
  expect(csvField('plain/model-1.0')).toBe('plain/model-1.0');
  expect(csvField('a,b')).toBe('"a,b"');
  expect(csvField('say "hi"')).toBe('"say ""hi"""');
  expect(csvField('two\nlines')).toBe('"two\nlines"');
  expect(csvField('cr\r')).toBe('"cr\r"');
  expect(csvField('')).toBe('');
  expect(csvLine(['a', 'b,c', 'd"'])).toBe('a,"b,c","d"""\r\n');
});

test('micro-dollars are written as exact dollars', () => {
  expect(microUsdDecimal(0)).toBe('0.000000');
  expect(microUsdDecimal(4800)).toBe('0.004800');
  expect(microUsdDecimal(12_500_000)).toBe('12.500000');
  expect(microUsdDecimal(9_007_199_254_740_991)).toBe('9007199254.740991');
});

test('one line per call', () => {
  expect(
    usageCsvLine({
      id: 'r',
      at: Date.parse('2026-11-01T09:30:00.250Z'),
      org_id: 'o',
      user_id: 'u',
      key_id: 'k',
      model: 'odd,"model"',
      provider: 'openai',
      prompt_tokens: 10,
      completion_tokens: 5,
      reasoning_tokens: 3,
      total_tokens: 15,
      cost_micro_usd: 123,
      latency_ms: 800,
      status: 200,
      kind: 'extraction',
    }),
  ).toBe(
    '2026-11-01T09:30:00.250Z,u,k,"odd,""model""",openai,10,5,15,0.000123,800,200,3,extraction\r\n',
  );
});

test('file names: a date at midnight UTC, else the instant without colons', () => {
  expect(fileNameInstant(Date.parse('2026-11-01T00:00:00Z'))).toBe('2026-11-01');
  expect(fileNameInstant(Date.parse('2026-11-01T09:30:00Z'))).toBe('2026-11-01T093000Z');
  expect(fileNameInstant(Date.parse('2026-11-01T09:30:00.250Z'))).toBe('2026-11-01T093000.250Z');
});
