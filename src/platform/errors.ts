/**
 * An error that is part of the interface: a stable `code`, the HTTP status, and a message
 * meant for the client. Anything else that reaches the error handler is an internal error.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Extra top-level fields of the error body, beside `error`. */
  readonly body: Readonly<Record<string, unknown>>;

  constructor(
    status: number,
    code: string,
    message: string,
    extra: { headers?: Record<string, string>; body?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = extra.headers ?? {};
    this.body = extra.body ?? {};
  }
}

export const badRequest = (message: string) => new ApiError(400, 'bad_request', message);
export const unauthenticated = (message: string) => new ApiError(401, 'unauthenticated', message);
export const forbidden = (message: string) => new ApiError(403, 'forbidden', message);
export const notFound = (message: string) => new ApiError(404, 'not_found', message);
export const conflict = (message: string) => new ApiError(409, 'conflict', message);

/** A name given blank (or only spaces): refused alike for organizations, projects, keys, apps and end users. */
export const BLANK_NAME = 'name must not be blank';
export const blankName = () => badRequest(BLANK_NAME);
