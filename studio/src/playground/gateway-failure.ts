import { ApiError, sentence } from '../api/errors.ts';

/**
 * A `/v1` failure as a sentence. The gateway's 502 and 504 say which provider failed and what
 * to do, in words meant for people (upstream-errors.ts), so they are shown rather than the
 * platform's "an error on its side"; a 401 is the playground's own key, never the session.
 */
export function gatewayFailure(error: unknown): string {
  if (!(error instanceof ApiError)) return sentence(error);
  if (error.status === 401) {
    return 'The playground’s temporary key was refused. Send again to use a new one.';
  }
  if (error.status === 502 || error.status === 504) {
    return sentence(new ApiError(400, error.message.replaceAll('`', '')));
  }
  return sentence(error);
}
