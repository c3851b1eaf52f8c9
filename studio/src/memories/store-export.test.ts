import { expect, test } from 'vitest';
import { exportFileName, fileSlug } from './store-export.ts';

test('an export is named after whose store it is and the local day', () => {
  expect(exportFileName('Ada Lovelace', new Date(2026, 2, 4, 23, 59))).toBe(
    'mnemo-memories-ada-lovelace-2026-03-04.jsonl',
  );
});

test('the store’s part of the name: letters and digits of any script, the rest one hyphen', () => {
  expect(fileSlug('Tomás Álvarez')).toBe('tomás-álvarez');
  expect(fileSlug('auth0|65f1c2a9e4b0d7')).toBe('auth0-65f1c2a9e4b0d7');
  expect(fileSlug('  “Ledger migration” (Q3)  ')).toBe('ledger-migration-q3');
  expect(fileSlug('山田 太郎')).toBe('山田-太郎');
  expect(fileSlug('🚀 ✨')).toBe('store');
  expect(fileSlug(`${'a'.repeat(59)} b`)).toBe('a'.repeat(59));
});
