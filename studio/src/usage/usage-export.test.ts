import { expect, test } from 'vitest';
import { fileNameOf } from './usage-export.ts';

test('the export’s file name comes from Content-Disposition', () => {
  expect(fileNameOf('attachment; filename="mnemo-usage-2026-03-01-2026-03-03.csv"')).toBe(
    'mnemo-usage-2026-03-01-2026-03-03.csv',
  );
  expect(fileNameOf('attachment; filename*=UTF-8\'\'usage%20m%C3%A4rz.csv; filename="x.csv"')).toBe(
    'usage märz.csv',
  );
  expect(fileNameOf('attachment; filename=plain.csv')).toBe('plain.csv');
  expect(fileNameOf('attachment')).toBeUndefined();
  expect(fileNameOf(null)).toBeUndefined();
});
