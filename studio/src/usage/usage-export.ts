import { createAuthorizedFetch, inOrg } from '../api/client.ts';
import { errorFromResponse } from '../api/errors.ts';
import type { Session } from '../auth/session.ts';
import { downloadBlob } from '../ui/download.ts';

/**
 * The file name a Content-Disposition header gives (RFC 6266): `filename*=UTF-8''…` when
 * present, else `filename="…"` or a bare token.
 */
export function fileNameOf(disposition: string | null): string | undefined {
  if (!disposition) return undefined;
  const extended = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(disposition);
  if (extended?.[1]) {
    try {
      return decodeURIComponent(extended[1].trim());
    } catch {
      // A malformed escape: the plain filename below, if any.
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(disposition);
  const name = plain?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[2];
  return name || undefined;
}

/**
 * Downloads the calls of a range as CSV. The export needs the access token, which a plain link
 * cannot carry: the file is fetched, then handed to the browser as a download of a Blob.
 */
export async function downloadUsageCsv(
  session: Session,
  orgId: string,
  bounds: { from: string; to: string },
): Promise<string> {
  const url = new URL('/api/v1/usage/export.csv', location.origin);
  url.search = new URLSearchParams(bounds).toString();
  const response = await createAuthorizedFetch(session)(
    new Request(url, { headers: { ...inOrg(orgId), accept: 'text/csv' } }),
  );
  if (!response.ok) throw await errorFromResponse(response);
  const blob = await response.blob();
  const name =
    fileNameOf(response.headers.get('content-disposition')) ??
    `mnemo-usage-${bounds.from}-${bounds.to}.csv`;
  downloadBlob(blob, name);
  return name;
}
