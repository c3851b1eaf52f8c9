import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import { createArrivalLog, type StreamSummary, summarize } from './sse-arrivals.ts';

/** Where a chat completion is asked for, and as whom. */
export interface Endpoint {
  /** `http://127.0.0.1:{port}` */
  readonly origin: string;
  /** `/v1/chat/completions` */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly model: string;
}

export function chatBody(model: string, prompt: string, stream: boolean): string {
  return JSON.stringify({ model, messages: [{ role: 'user', content: prompt }], stream });
}

/**
 * One streamed completion over node:http, every socket read stamped as it comes in: a `data`
 * listener put before the HTTP parser's own counts the read and takes the time, then the
 * parser hands the response the body of that read.
 */
function streamOnce(endpoint: Endpoint, agent: Agent, prompt: string): Promise<StreamSummary> {
  const body = chatBody(endpoint.model, prompt, true);
  const log = createArrivalLog();
  let read = 0;
  let readAt = 0;
  const onRead = () => {
    read++;
    readAt = performance.now();
  };
  let socket: Socket | undefined;
  return new Promise((resolve, reject) => {
    const req = request(
      `${endpoint.origin}${endpoint.path}`,
      {
        method: 'POST',
        agent,
        headers: {
          ...endpoint.headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.setEncoding('utf8');
        let failed = '';
        res.on('data', (text: string) => {
          if (res.statusCode === 200) log.feed(text, read, readAt);
          else failed += text;
        });
        res.once('end', () => {
          socket?.removeListener('data', onRead);
          if (res.statusCode === 200) resolve(summarize(log.events, sentAt));
          else reject(new Error(`streamed request: ${res.statusCode} ${failed.slice(0, 300)}`));
        });
        res.once('error', reject);
      },
    );
    req.once('socket', (assigned) => {
      socket = assigned;
      assigned.prependListener('data', onRead);
    });
    req.once('error', reject);
    const sentAt = performance.now();
    req.end(body);
  });
}

/** `count` streamed completions one after another on one keep-alive connection. */
export async function streamInSequence(
  endpoint: Endpoint,
  prompt: string,
  count: number,
): Promise<StreamSummary[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const summaries: StreamSummary[] = [];
    for (let i = 0; i < count; i++) summaries.push(await streamOnce(endpoint, agent, prompt));
    return summaries;
  } finally {
    agent.destroy();
  }
}
