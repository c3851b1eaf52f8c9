import type { MemoryItem } from './types.ts';

/**
 * An answer of the API that is not a success, or a token the authorization server refused.
 *
 * `message` is the server's own: `{"error"}` on `/api` (README, "Errors and limits"), the
 * `error_description` (or `error`) of RFC 6749 §5.2 on `/oauth/token`.
 *
 * @example
 * try {
 *   await mnemo.memories.get(id);
 * } catch (error) {
 *   if (error instanceof MnemoError && error.status === 404) return undefined;
 *   throw error;
 * }
 */
export class MnemoError extends Error {
  override readonly name = 'MnemoError';
  /** The HTTP status of the answer. */
  readonly status: number;
  /** The answer's `Retry-After`, in seconds, when it had one (429, 503). */
  readonly retryAfter: number | undefined;
  /** The answer's body as parsed JSON, or its text when it was not JSON. */
  readonly body: unknown;

  constructor(status: number, message: string, body: unknown, retryAfter?: number) {
    super(message);
    this.status = status;
    this.body = body;
    this.retryAfter = retryAfter;
  }

  /** The memory as it is now, sent with a 409 (a `baseUpdatedAt` that another write overtook). */
  get memory(): MemoryItem | undefined {
    const body = this.body as { memory?: MemoryItem } | null;
    return typeof body === 'object' && body !== null ? body.memory : undefined;
  }
}

/** Reads a failed answer into a MnemoError. */
export async function errorOf(response: Response): Promise<MnemoError> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    // Not JSON (a proxy's page, say): the text is the body.
  }
  return new MnemoError(
    response.status,
    messageOf(body) ?? `HTTP ${response.status}`,
    body,
    retryAfterOf(response.headers),
  );
}

function messageOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { error, error_description } = body as { error?: unknown; error_description?: unknown };
  if (typeof error_description === 'string') return error_description;
  return typeof error === 'string' ? error : undefined;
}

/** `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date, as seconds from now. */
export function retryAfterOf(headers: Headers): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
