import { Agent, errors } from 'undici';
import type { Outcome, Transport, TransportResponse } from '../provider.ts';

export interface TransportOptions {
  /** How long a provider may take to start answering (its status and headers). */
  readonly firstByteTimeoutMs: number;
  /** How long a started answer may go silent between two pieces of its body. */
  readonly idleTimeoutMs: number;
  /** Connections kept per provider origin. */
  readonly connectionsPerOrigin?: number;
}

export interface ClosableTransport extends Transport {
  /** Closes every pooled connection; requests in flight finish first. */
  close(): Promise<void>;
}

/**
 * One undici Agent for every provider: it keeps a keep-alive pool per origin, so a call does
 * not pay a TCP (and TLS) handshake. Failures to connect, resets before an answer and timeouts
 * come back as `unreachable` or `timeout`, for the router to try another model.
 *
 * @example
 * const transport = createTransport({ firstByteTimeoutMs: 300_000, idleTimeoutMs: 300_000 });
 * const sent = await transport.post(url, { authorization: `Bearer ${key}` }, json, signal);
 * if (sent.ok) console.log(sent.value.status, await sent.value.body.text());
 */
export function createTransport(options: TransportOptions): ClosableTransport {
  const agent = new Agent({
    connections: options.connectionsPerOrigin ?? 256,
    keepAliveTimeout: 30_000,
    headersTimeout: options.firstByteTimeoutMs,
    bodyTimeout: options.idleTimeoutMs,
  });

  return {
    async post(url, headers, body, signal) {
      try {
        const response = await agent.request({
          origin: new URL(url).origin,
          path: pathOf(url),
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body,
          signal,
        });
        const value: TransportResponse = {
          status: response.statusCode,
          headers: response.headers,
          body: response.body,
        };
        return { ok: true, value };
      } catch (error) {
        return { ok: false, failure: failureOf(error) } satisfies Outcome<TransportResponse>;
      }
    },
    close: () => agent.close(),
  };
}

function pathOf(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

function failureOf(error: unknown) {
  if (error instanceof errors.HeadersTimeoutError || error instanceof errors.ConnectTimeoutError) {
    return { kind: 'timeout' as const };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'unreachable' as const, message };
}
