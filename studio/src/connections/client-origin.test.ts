import { expect, test } from 'vitest';
import { clientOrigin, initialOf, toneOf } from './client-origin.ts';

test('a metadata document’s client is from the host that publishes it; any other was registered', () => {
  expect(clientOrigin('https://claude.ai/oauth/mcp-oauth-client-metadata')).toEqual({
    kind: 'published',
    host: 'claude.ai',
  });
  expect(clientOrigin('https://127.0.0.1:8443/clients/notes.json')).toEqual({
    kind: 'published',
    host: '127.0.0.1:8443',
  });
  expect(clientOrigin('mnemo_client_q3v9X2kLw8YtR1pZs0aBcd')).toEqual({ kind: 'registered' });
  expect(clientOrigin('mnemo-cli')).toEqual({ kind: 'registered' });
});

test('an app’s tile shows the first letter or digit of its name', () => {
  expect(initialOf('claude')).toBe('C');
  expect(initialOf('  “VS Code”')).toBe('V');
  expect(initialOf('Éclair')).toBe('É');
  expect(initialOf('1Password')).toBe('1');
  expect(initialOf('…')).toBe('?');
});

test('an app’s tile keeps its tint, and apps differ', () => {
  const ids = [
    'https://claude.ai/oauth/mcp-oauth-client-metadata',
    'mnemo_client_a',
    'mnemo_client_b',
  ];
  const tones = ids.map(toneOf);
  expect(ids.map(toneOf)).toEqual(tones);
  for (const tone of tones) expect(tone).toBeGreaterThanOrEqual(0);
  for (const tone of tones) expect(tone).toBeLessThan(6);
  expect(new Set(Array.from({ length: 60 }, (_, i) => toneOf(`mnemo_client_${i}`))).size).toBe(6);
});
