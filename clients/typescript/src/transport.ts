import type { TokenSource } from './auth.ts';
import { errorOf, type MnemoError } from './errors.ts';

/** How a `429 Too Many Requests` is waited out. */
export interface RetryOptions {
  /** Retries after a 429 before its MnemoError is thrown; 3 by default, 0 to never wait. */
  readonly maxRetries?: number;
  /** The longest `Retry-After` waited, in seconds (60 by default): a longer one is thrown. */
  readonly maxWaitSeconds?: number;
}

/** What every operation takes beside its own arguments. */
export interface RequestOptions {
  /** Ends the request, and any wait for a retry, with the signal's reason. */
  readonly signal?: AbortSignal;
}

export interface Transport {
  /** A successful answer (2xx), or a MnemoError for any other. */
  send(request: {
    readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
    readonly path: string;
    readonly query?: Readonly<Record<string, string | number | undefined>>;
    readonly body?: unknown;
    readonly signal?: AbortSignal | undefined;
    /** Headers of this request's own (a stream's `Accept` and `Last-Event-ID`). */
    readonly headers?: Readonly<Record<string, string>>;
  }): Promise<Response>;
}

export function createTransport(options: {
  readonly baseUrl: string;
  readonly organizationId: string;
  readonly token: TokenSource;
  readonly fetch: typeof fetch;
  readonly retry: RetryOptions;
}): Transport {
  const maxRetries = options.retry.maxRetries ?? 3;
  const maxWaitSeconds = options.retry.maxWaitSeconds ?? 60;

  return {
    async send({ method, path, query, body, signal, headers }) {
      const url = new URL(`${options.baseUrl}${path}`);
      for (const [name, value] of Object.entries(query ?? {})) {
        if (value !== undefined) url.searchParams.set(name, String(value));
      }
      const payload = body === undefined ? undefined : JSON.stringify(body);
      for (let attempt = 0; ; attempt++) {
        signal?.throwIfAborted();
        const response = await options.fetch(url, {
          method,
          headers: {
            authorization: `Bearer ${await options.token()}`,
            'x-organization-id': options.organizationId,
            accept: 'application/json',
            ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
            ...headers,
          },
          ...(payload === undefined ? {} : { body: payload }),
          ...(signal === undefined ? {} : { signal }),
        });
        if (response.ok) return response;
        const error = await errorOf(response);
        if (!waitable(error, attempt)) throw error;
        await sleep((error.retryAfter ?? 1) * 1000, signal);
      }
    },
  };

  /** Only a 429 is waited out: it is refused before anything is done, so sending it again is safe. */
  function waitable(error: MnemoError, attempt: number): boolean {
    return (
      error.status === 429 && attempt < maxRetries && (error.retryAfter ?? 1) <= maxWaitSeconds
    );
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const aborted = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }, ms);
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
