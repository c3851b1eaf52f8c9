import type { Outcome, TransportResponse } from '../provider.ts';
import { genericError } from './upstream-failure.ts';

/**
 * A whole answer's body as JSON. A connection lost while it arrives is the provider being
 * unreachable; a body that is not JSON is the provider breaking its contract (502).
 *
 * @example
 * const body = await readJsonBody(response, 'a chat completion');
 * if (!body.ok) return body;
 */
export async function readJsonBody(
  response: TransportResponse,
  expected: string,
): Promise<Outcome<unknown>> {
  let text: string;
  try {
    text = await response.body.text();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, failure: { kind: 'unreachable', message } };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return notExpected(expected);
  }
}

/** A 200 whose body is not what the provider's API promises. */
export function notExpected(expected: string): Outcome<never> {
  return {
    ok: false,
    failure: {
      kind: 'status',
      status: 502,
      error: genericError(502, `The provider answered with a body that is not ${expected}.`),
    },
  };
}

/** The error body's text as JSON, or undefined when it is not JSON (a proxy's HTML page). */
export async function readErrorBody(response: TransportResponse): Promise<unknown> {
  const text = await response.body.text().catch(() => '');
  try {
    return JSON.parse(text);
  } catch {
    return text === '' ? undefined : text;
  }
}
