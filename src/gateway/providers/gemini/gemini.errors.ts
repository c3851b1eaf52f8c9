import type { OpenAiError } from '../../openai-errors.ts';
import type { TransportResponse, UpstreamFailure } from '../../provider.ts';
import { genericError, statusFailure } from '../upstream-failure.ts';
import type { GeminiErrorBody, GeminiErrorDetail } from './gemini.types.ts';

type GeminiError = GeminiErrorBody['error'];

/**
 * A Gemini error answer as a failure. Google answers a key it does not know with
 * `400 INVALID_ARGUMENT` and the ErrorInfo reason `API_KEY_INVALID`, not a 401: that too is the
 * provider refusing mnemo's key. A 429 states its wait in a google.rpc.RetryInfo detail rather
 * than a header; it is used when no `retry-after` came.
 *
 * @example
 * if (response.status !== 200) return { ok: false, failure: geminiFailureOf(response, body) };
 */
export function geminiFailureOf(
  response: Pick<TransportResponse, 'status' | 'headers'>,
  body: unknown,
): UpstreamFailure {
  const error = geminiErrorOf(body);
  const translated = openAiErrorOf(response.status, error);
  if (error?.details?.some((detail) => detail.reason === 'API_KEY_INVALID')) {
    return { kind: 'key-refused', status: response.status, message: translated.message };
  }
  const failure = statusFailure(response, translated);
  const retryDelay = retryDelayOf(error);
  if (failure.kind === 'status' && failure.retryAfterMs === undefined && retryDelay !== undefined) {
    return { ...failure, retryAfterMs: retryDelay };
  }
  return failure;
}

/**
 * Google's error in OpenAI's shape: the type from the status, as OpenAI's would be, and as
 * `code` the google.rpc status name in OpenAI's lower case (`resource_exhausted`,
 * `invalid_argument`), which says more than the HTTP status alone.
 */
export function openAiErrorOf(status: number, error: GeminiError | undefined): OpenAiError {
  if (error === undefined) return genericError(status);
  return {
    ...genericError(status, error.message || undefined),
    code: error.status ? error.status.toLowerCase() : null,
  };
}

/**
 * The `error` of Google's body, if the body is one (an object, or from a stream asked for
 * without `alt=sse`, an array holding one), with only the fields of the expected types.
 */
export function geminiErrorOf(body: unknown): GeminiError | undefined {
  const candidate: unknown = Array.isArray(body) ? body[0] : body;
  if (!isRecord(candidate) || !isRecord(candidate.error)) return undefined;
  const { code, message, status, details } = candidate.error;
  return {
    ...(typeof code === 'number' && { code }),
    ...(typeof message === 'string' && { message }),
    ...(typeof status === 'string' && { status }),
    ...(Array.isArray(details) && { details: details.filter(isRecord) as GeminiErrorDetail[] }),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** RetryInfo's `retryDelay`, a protobuf Duration in JSON (`"38s"`, `"0.500s"`), in ms. */
function retryDelayOf(error: GeminiError | undefined): number | undefined {
  for (const detail of error?.details ?? []) {
    const delay = detail.retryDelay;
    const seconds = typeof delay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(delay)?.[1] : undefined;
    if (seconds !== undefined) return Math.round(Number(seconds) * 1000);
  }
  return undefined;
}
