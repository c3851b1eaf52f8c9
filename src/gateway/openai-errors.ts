import type { FastifyReply } from 'fastify';

/**
 * OpenAI's error body, which `/v1` imitates (DESIGN.md §3): `{"error": {"message", "type",
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

export function sendGatewayError(reply: FastifyReply, error: GatewayError) {
  return reply
    .code(error.status)
    .headers(error.headers)
    .header('cache-control', 'no-store')
    .type('application/json; charset=utf-8')
    .send(error.body);
}
