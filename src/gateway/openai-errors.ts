import type { FastifyReply } from 'fastify';
import type { ErrorShape } from '../platform/error-surfaces.ts';
import type { Failure } from '../platform/failure.ts';

/**
 * OpenAI's error body, which `/v1` imitates (docs/design.md §3): `{"error": {"message", "type",
 * "param", "code"}}`. Clients branch on the status and on `code`.
 */
export interface OpenAiError {
  readonly message: string;
  /** mnemo's own errors use these; a provider's may carry its own (`server_error`, …). */
  readonly type:
    | 'invalid_request_error'
    | 'authentication_error'
    | 'rate_limit_error'
    | 'api_error'
    | (string & {});
  readonly param: string | null;
  readonly code: string | null;
}

/** An error of the chat interface: its status and OpenAI's body. */
export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  readonly status: number;
  readonly body: { readonly error: OpenAiError };
  /** Sent with it: `retry-after`, `x-should-retry`, what routing did. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, error: OpenAiError, headers: Record<string, string> = {}) {
    super(error.message);
    this.status = status;
    this.body = { error };
    this.headers = headers;
  }
}

export const invalidRequest = (
  message: string,
  code: string | null = null,
  param: string | null = null,
) => new GatewayError(400, { message, type: 'invalid_request_error', param, code });

export const modelNotFound = (model: string) =>
  new GatewayError(404, {
    message: `The model \`${model}\` does not exist or you do not have access to it.`,
    type: 'invalid_request_error',
    param: 'model',
    code: 'model_not_found',
  });

export const unknownUrl = (method: string, url: string) =>
  new GatewayError(404, {
    message: `Unknown request URL: ${method} ${url}. Please check the URL for typos, or see /v1/models for the models offered.`,
    type: 'invalid_request_error',
    param: null,
    code: 'unknown_url',
  });

export const serverError = () =>
  new GatewayError(500, {
    message: 'The server had an error while processing your request.',
    type: 'api_error',
    param: null,
    code: null,
  });

/**
 * Whether the same request may succeed if sent again: a timeout, a rate limit, a failure of the
 * server or of a provider. The rule the official SDKs apply when `x-should-retry` is absent.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** `x-should-retry` of an error: what the error says, else what its status implies. */
const shouldRetry = (error: GatewayError) =>
  error.headers['x-should-retry'] ?? String(isRetryableStatus(error.status));

/**
 * Every `/v1` error as it goes out: OpenAI's body, no-store, and `x-should-retry` (from the
 * error when it says, else from its status), so a client never has to guess.
 */
export function sendGatewayError(reply: FastifyReply, error: GatewayError) {
  return reply
    .code(error.status)
    .headers(error.headers)
    .header('x-should-retry', shouldRetry(error))
    .header('cache-control', 'no-store')
    .type('application/json; charset=utf-8')
    .send(error.body);
}

/** A failure raised outside the gateway's own code (Fastify, the HTTP parser, the store), as OpenAI's error. */
export function gatewayErrorOf(failure: Failure): GatewayError {
  return new GatewayError(
    failure.status,
    {
      message: failure.message,
      type:
        failure.status >= 500
          ? 'api_error'
          : failure.status === 429
            ? 'rate_limit_error'
            : 'invalid_request_error',
      param: null,
      code: failure.code,
    },
    { ...failure.headers },
  );
}

/** `/v1`'s shape for errors raised where no gateway handler runs (error-surfaces.ts). */
export const openAiErrorShape: ErrorShape = (failure) => {
  const error = gatewayErrorOf(failure);
  return {
    body: error.body,
    headers: {
      'x-should-retry': shouldRetry(error),
    },
  };
};
