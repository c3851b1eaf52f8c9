import { type ApiClient, data, inOrg } from '../api/client.ts';
import { downloadBlob } from '../ui/download.ts';
import { listQuery, type MemoryScope } from './memory-scope.ts';

/** The date of `at` as the person's calendar has it, `YYYY-MM-DD`. */
function localDate(at: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}`;
}

/** A file name's part for a store's label: "Tomás Álvarez" → "tomás-álvarez". */
export function fileSlug(label: string): string {
  return (
    label
      .normalize('NFC')
      .toLocaleLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60)
      .replace(/-+$/, '') || 'store'
  );
}

/** `mnemo-memories-<store>-<YYYY-MM-DD>.jsonl`, the name an export is saved under. */
export const exportFileName = (label: string, at = new Date()) =>
  `mnemo-memories-${fileSlug(label)}-${localDate(at)}.jsonl`;

/**
 * Downloads a store as `GET /api/v1/memory/export` gives it: JSON Lines, one MemoryItem a line,
 * read from one snapshot. The export needs the access token, which a plain link cannot carry: the
 * file is fetched through the API client, then handed to the browser as a download of a Blob.
 * Resolves to the file's name and how many memories it holds.
 */
export async function downloadStore(
  api: ApiClient,
  orgId: string,
  scope: MemoryScope,
  label: string,
): Promise<{ name: string; count: number }> {
  const blob = await data(
    api.GET('/api/v1/memory/export', {
      params: { query: listQuery(scope), header: inOrg(orgId) },
      parseAs: 'blob',
    }),
  );
  const text = await blob.text();
  const count = text.trim() === '' ? 0 : text.trimEnd().split('\n').length;
  const name = exportFileName(label);
  downloadBlob(blob, name);
  return { name, count };
}
