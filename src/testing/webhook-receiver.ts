import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** A delivery as a receiver on loopback got it, its signature checked with the library. */
export interface ReceivedDelivery {
  readonly id: string;
  readonly timestamp: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The body parsed: `{type, timestamp, data}`. */
  readonly event: { type: string; timestamp: string; data: Record<string, unknown> };
  /** Whether `Webhook.verify` accepted it with the secret the receiver was given; why not. */
  readonly verified: true | string;
  /** The path it was POSTed to. */
  readonly path: string;
  /** When it arrived, `performance.now()`. */
  readonly at: number;
}

/** How the receiver answers one delivery (the n-th it got, from 0). */
export interface Answer {
  readonly status?: number;
  readonly body?: string;
  readonly headers?: Record<string, string>;
  /** Milliseconds before answering. */
  readonly delayMs?: number;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:{port}/hooks`: POST here. */
  readonly url: string;
  readonly port: number;
  /** Every delivery received, in the order they arrived. */
  readonly received: ReceivedDelivery[];
  /**
   * The secret deliveries are verified with (the one the webhook's creation showed): those to
   * `path` (`/hooks/…`) when given, else every one no path's secret is set for.
   */
  setSecret(secret: string, path?: string): void;
  /** How it answers from now on; 204 by default. */
  answer(with_: (delivery: ReceivedDelivery, index: number) => Answer): void;
  /** Resolves once `count` deliveries (matching `filter`) arrived; rejects after `timeoutMs`. */
  waitFor(
    count: number,
    options?: { timeoutMs?: number; filter?: (delivery: ReceivedDelivery) => boolean },
  ): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

/**
 * An HTTP receiver of webhooks on loopback (node:http), as a customer's endpoint would be: it
 * verifies every delivery's signature with the Standard Webhooks library (`Webhook.verify`, the
 * same package mnemo signs with), keeps what it got, and answers as told.
 */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  let secret: string | undefined;
  const secrets = new Map<string, string>();
  let answer: (delivery: ReceivedDelivery, index: number) => Answer = () => ({ status: 204 });
  const waiters = new Set<() => void>();

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const header = (name: string) => String(request.headers[name] ?? '');
      let verified: true | string = 'no secret given';
      const key = secrets.get(request.url ?? '') ?? secret;
      if (key !== undefined) {
        try {
          new Webhook(key).verify(body, {
            'webhook-id': header('webhook-id'),
            'webhook-timestamp': header('webhook-timestamp'),
            'webhook-signature': header('webhook-signature'),
          });
          verified = true;
        } catch (error) {
          verified = (error as Error).message;
        }
      }
      let event: ReceivedDelivery['event'];
      try {
        event = JSON.parse(body) as ReceivedDelivery['event'];
      } catch {
        event = { type: '(not JSON)', timestamp: '', data: {} };
      }
      const delivery: ReceivedDelivery = {
        id: header('webhook-id'),
        timestamp: header('webhook-timestamp'),
        headers: request.headers,
        body,
        event,
        verified,
        path: request.url ?? '',
        at: performance.now(),
      };
      const index = received.length;
      received.push(delivery);
      for (const wake of waiters) wake();
      const { status = 204, body: text, headers = {}, delayMs = 0 } = answer(delivery, index);
      const send = () => {
        response.writeHead(status, headers);
        response.end(text);
      };
      if (delayMs > 0) setTimeout(send, delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 1000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    setSecret: (value, path) => {
      if (path === undefined) secret = value;
      else secrets.set(path, value);
    },
    answer: (with_) => {
      answer = with_;
    },
    async waitFor(count, options = {}) {
      const { timeoutMs = 10_000, filter = () => true } = options;
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matching = received.filter(filter);
        if (matching.length >= count) return matching;
        const left = deadline - Date.now();
        if (left <= 0) {
          throw new Error(
            `the receiver got ${matching.length} of ${count} deliveries within ${timeoutMs} ms`,
          );
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, left);
          function done() {
            clearTimeout(timer);
            waiters.delete(done);
            resolve();
          }
          waiters.add(done);
        });
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
