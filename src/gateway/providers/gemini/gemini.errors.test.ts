import { describe, expect, it } from 'vitest';
import { geminiFailureOf, openAiErrorOf } from './gemini.errors.ts';

const answer = (status: number, headers: Record<string, string> = {}) => ({ status, headers });

describe('geminiFailureOf', () => {
  it("takes Google's 400 API_KEY_INVALID for the provider refusing the key", () => {
    const body = {
      error: {
        code: 400,
        message: 'API key not valid. Please pass a valid API key.',
        status: 'INVALID_ARGUMENT',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' },
        ],
      },
    };
    expect(geminiFailureOf(answer(400), body)).toEqual({
      kind: 'key-refused',
      status: 400,
      message: 'API key not valid. Please pass a valid API key.',
    });
  });

  it('keeps any other 400 as an invalid request, with the status name as the code', () => {
    const body = {
      error: {
        code: 400,
        message: 'Request contains an invalid argument.',
        status: 'INVALID_ARGUMENT',
      },
    };
    expect(geminiFailureOf(answer(400), body)).toEqual({
      kind: 'status',
      status: 400,
      error: {
        message: 'Request contains an invalid argument.',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_argument',
      },
      retryAfterMs: undefined,
    });
  });

  it("reads a 429's wait from RetryInfo, unless a retry-after header came", () => {
    const body = {
      error: {
        code: 429,
        message: 'You exceeded your current quota.',
        status: 'RESOURCE_EXHAUSTED',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [] },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '38.5s' },
        ],
      },
    };
    expect(geminiFailureOf(answer(429), body)).toEqual({
      kind: 'status',
      status: 429,
      error: {
        message: 'You exceeded your current quota.',
        type: 'rate_limit_error',
        param: null,
        code: 'resource_exhausted',
      },
      retryAfterMs: 38_500,
    });
    expect(geminiFailureOf(answer(429, { 'retry-after': '2' }), body)).toMatchObject({
      retryAfterMs: 2000,
    });
  });

  it('refuses the key on 401 and 403 too', () => {
    const body = {
      error: { code: 403, message: 'Permission denied.', status: 'PERMISSION_DENIED' },
    };
    expect(geminiFailureOf(answer(403), body)).toEqual({
      kind: 'key-refused',
      status: 403,
      message: 'Permission denied.',
    });
  });

  it('describes a body in no known shape generically, and reads an array-wrapped error', () => {
    expect(geminiFailureOf(answer(502), '<html>Bad gateway</html>')).toEqual({
      kind: 'status',
      status: 502,
      error: {
        message: 'The provider answered with status 502.',
        type: 'api_error',
        param: null,
        code: null,
      },
      retryAfterMs: undefined,
    });
    expect(
      geminiFailureOf(answer(503), [
        { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } },
      ]),
    ).toMatchObject({ status: 503, error: { type: 'api_error', code: 'unavailable' } });
  });
});

describe('openAiErrorOf', () => {
  it('falls back to the generic message when Google sent none', () => {
    expect(openAiErrorOf(500, { code: 500 })).toEqual({
      message: 'The provider answered with status 500.',
      type: 'api_error',
      param: null,
      code: null,
    });
  });

  it('ignores fields of the wrong type', () => {
    const body = { error: { code: '500', message: 42, status: ['INTERNAL'], details: 'none' } };
    expect(geminiFailureOf(answer(500), body)).toEqual({
      kind: 'status',
      status: 500,
      error: {
        message: 'The provider answered with status 500.',
        type: 'api_error',
        param: null,
        code: null,
      },
      retryAfterMs: undefined,
    });
  });
});
