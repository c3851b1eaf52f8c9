import { GatewayError, isRetryableStatus } from './openai-errors.ts';
import type { UpstreamFailure } from './provider.ts';

/** Whether another model (or a later try) may succeed where this failure happened. */
export function isRetryable(failure: UpstreamFailure): boolean {
  switch (failure.kind) {
    case 'unreachable':
    case 'timeout':
    case 'key-refused':
      return true;
    case 'status':
      return isRetryableStatus(failure.status);
  }
}

/**
 * What the caller sees of a provider's failure. The SDKs retry on `x-should-retry: true` and
 * wait `retry-after-ms`/`retry-after`; a refused provider key is the operator's to fix, so it
 * is a 502 that says not to retry, never the caller's own 401.
 */
export function callerErrorOf(failure: UpstreamFailure, provider: string): GatewayError {
  switch (failure.kind) {
    case 'unreachable':
      return new GatewayError(
        502,
        {
          message: `The provider \`${provider}\` could not be reached; try again shortly.`,
          type: 'api_error',
          param: null,
          code: 'provider_unreachable',
        },
        { 'x-should-retry': 'true' },
      );
    case 'timeout':
      return new GatewayError(
        504,
        {
          message: `The provider \`${provider}\` did not start answering in time.`,
          type: 'api_error',
          param: null,
          code: 'provider_timeout',
        },
        { 'x-should-retry': 'true' },
      );
    case 'key-refused':
      return new GatewayError(
        502,
        {
          message: `The provider \`${provider}\` refused this server's credentials for it (status ${failure.status}); the operator must fix its key.`,
          type: 'api_error',
          param: null,
          code: 'provider_auth_failed',
        },
        { 'x-should-retry': 'false' },
      );
    case 'status': {
      const retry = isRetryable(failure);
      return new GatewayError(failure.status, failure.error, {
        'x-should-retry': String(retry),
        ...(retry && failure.retryAfterMs !== undefined
          ? retryAfterHeaders(failure.retryAfterMs)
          : {}),
      });
    }
  }
}

export function retryAfterHeaders(ms: number): Record<string, string> {
  return {
    'retry-after-ms': String(Math.ceil(ms)),
    'retry-after': String(Math.ceil(ms / 1000)),
  };
}
