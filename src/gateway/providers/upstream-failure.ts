import type { ProviderConfig } from '../catalog.ts';
import type { OpenAiError } from '../openai-errors.ts';
import type { Outcome, TransportResponse, UpstreamFailure } from '../provider.ts';

/**
 * A provider's answer with an error status, as a failure: 401 and 403 mean it refused mnemo's
 * own key (the caller's key is not the provider's business), anything else keeps its status with
 * the provider's error translated to OpenAI's shape by the provider kind.
 *
 * @example
 * if (response.status !== 200) {
 *   return { ok: false, failure: statusFailure(response, openAiErrorOf(await readJson(response))) };
 * }
 */
export function statusFailure(
  response: Pick<TransportResponse, 'status' | 'headers'>,
  error: OpenAiError,
): UpstreamFailure {
  if (response.status === 401 || response.status === 403) {
    return { kind: 'key-refused', status: response.status, message: error.message };
  }
  return {
    kind: 'status',
    status: response.status,
    error,
    retryAfterMs: retryAfterMs(response.headers),
  };
}

/** `retry-after-ms`, else `retry-after` in seconds or as an HTTP date; undefined when absent. */
export function retryAfterMs(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  now = Date.now(),
): number | undefined {
  const ms = Number(first(headers['retry-after-ms']));
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const text = first(headers['retry-after']);
  if (text === undefined) return undefined;
  const seconds = Number(text);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const first = (value: string | string[] | undefined) =>
  Array.isArray(value) ? value[0] : value === '' ? undefined : value;

/** An error the provider described in no known shape, in OpenAI's. */
export function genericError(status: number, detail?: string): OpenAiError {
  const type =
    status === 429 ? 'rate_limit_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
  return {
    message: detail ?? `The provider answered with status ${status}.`,
    type,
    param: null,
    code: null,
  };
}

/**
 * A provider whose key variable is unset: its calls could only be refused, so none is sent, and
 * the caller sees what a refused key gives (502, the operator's to fix).
 */
export function missingKey(config: ProviderConfig): Outcome<never> {
  return {
    ok: false,
    failure: {
      kind: 'key-refused',
      status: 401,
      message: `No key for the provider ${config.name}: ${config.apiKeyEnv} is not set.`,
    },
  };
}
