/**
 * A request the API refused, or one that never reached it. `message` is the API's own text
 * (`{"error": "…"}`, or the OAuth/OpenAI shapes' description); pages show `sentence(error)`.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** The HTTP status; 0 when no answer came (offline, the server down). */
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** Reads the error message of any of mnemo's error shapes. */
export async function errorFromResponse(response: Response): Promise<ApiError> {
  let body: unknown;
  try {
    body = await response.clone().json();
  } catch {
    // Not JSON: the status line says what there is to say.
  }
  return errorFromBody(response, body);
}

/**
 * The same, for an answer whose body was already read and parsed (openapi-fetch reads an error
 * body itself, so the response can no longer be read).
 */
export function errorFromBody(response: Response, body: unknown): ApiError {
  let message = response.statusText || 'request failed';
  if (typeof body === 'object' && body !== null) {
    const { error, error_description } = body as {
      error?: string | { message?: string };
      error_description?: string;
    };
    if (typeof error === 'string') message = error_description ?? error;
    else if (error?.message) message = error.message;
  }
  return new ApiError(response.status, message);
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
/** A phrase of the API ("the person declined") as a sentence: capitalized, with a full stop. */
export const asSentence = (text: string) => {
  const trimmed = text.trim();
  return capitalized(/[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`);
};

/**
 * What a person reads when something failed: a sentence, never a status code or JSON. The
 * API's messages are already short phrases meant for people ("project cannot be combined with
 * user"); the status adds what to do about them.
 */
export function sentence(error: unknown): string {
  if (!(error instanceof ApiError)) {
    return 'Something went wrong in the studio. Reload the page and try again.';
  }
  const said = asSentence(error.message);
  switch (error.status) {
    case 0:
      return 'mnemo could not be reached. Check your connection and try again; nothing you typed was lost.';
    case 401:
      return 'Your session has ended. Sign in again to continue.';
    case 403:
      return `You are not allowed to do this: ${said}`;
    case 404:
      return `Not found: ${said}`;
    case 409:
      return `That could not be done: ${said}`;
    case 410:
      return `${said}`;
    case 413:
      return 'That is too large to send.';
    case 429:
      return 'Too many requests for now. Wait a moment and try again.';
    case 503:
      return 'mnemo is briefly unavailable. Try again in a moment.';
    default:
      return error.status >= 500
        ? 'mnemo could not do this because of an error on its side. Try again.'
        : said;
  }
}
