import { expect, test } from 'vitest';
import {
  apiCommand,
  parseRateLimit,
  rateLimitRefusal,
  rateLimitWords,
  tokenCommand,
} from './app-words.ts';

const rates = { defaultPerMinute: 60, maxPerMinute: 6000 };

test('a rate limit reads as its own, the default, or none when the server limits nothing', () => {
  expect(rateLimitWords(null, rates)).toBe('60 a minute (default)');
  expect(rateLimitWords(600, rates)).toBe('600 a minute');
  expect(rateLimitWords(null, { defaultPerMinute: 0, maxPerMinute: 6000 })).toBe(
    'No limit (default)',
  );
});

test('a rate limit field holds nothing (the default) or a whole number from 1', () => {
  expect(parseRateLimit('')).toEqual({ value: null });
  expect(parseRateLimit('  ')).toEqual({ value: null });
  expect(parseRateLimit(' 120 ')).toEqual({ value: 120 });
  for (const bad of ['0', '-5', '1.5', '1e3', 'ten', '99999999999999999999']) {
    expect(parseRateLimit(bad), bad).toEqual({ problem: expect.stringContaining('whole number') });
  }
});

test('the API’s refusal of a rate limit reads as a sentence about the rate limit', () => {
  expect(
    rateLimitRefusal('rateLimitPerMinute must be at most 6000, the most this server gives an app'),
  ).toBe('The rate limit must be at most 6,000, the most this server gives an app.');
  expect(rateLimitRefusal('name must not be blank')).toBeUndefined();
});

test('the commands carry the real values, ready for a shell', () => {
  const token = `curl -s https://mnemo.example/oauth/token \\
  -u "$CLIENT_ID:$CLIENT_SECRET" \\
  -d grant_type=client_credentials \\
  -d 'scope=memory:read memory:write admin'`;
  expect(tokenCommand('https://mnemo.example')).toBe(token);
  expect(
    tokenCommand('https://mnemo.example', { clientId: 'mnemo_client_a', secret: 'mnemo_cs_b' }),
  ).toBe(`CLIENT_ID=mnemo_client_a\nCLIENT_SECRET=mnemo_cs_b\n${token}`);
  expect(apiCommand('https://mnemo.example', 'org-1')).toBe(
    `curl -s https://mnemo.example/api/v1/memory \\
  -H "Authorization: Bearer $ACCESS_TOKEN" \\
  -H "X-Organization-Id: org-1"`,
  );
});
