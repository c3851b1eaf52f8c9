import type { OpenAiError } from '../../openai-errors.ts';
import { genericError } from '../upstream-failure.ts';

/** OpenAI's own error body is already the shape; anything else is described generically. */
export function openAiErrorOf(status: number, body: unknown): OpenAiError {
  if (typeof body === 'object' && body !== null && 'error' in body) {
    const error = (body as { error: unknown }).error;
    if (typeof error === 'object' && error !== null && 'message' in error) {
      const e = error as Partial<Record<keyof OpenAiError, unknown>>;
      return {
        message: String(e.message),
        type: typeof e.type === 'string' ? e.type : genericError(status).type,
        param: typeof e.param === 'string' ? e.param : null,
        code: typeof e.code === 'string' ? e.code : null,
      };
    }
    // Some compatible servers send `{"error": "text"}`.
    if (typeof error === 'string') return genericError(status, error);
  }
  return genericError(status);
}
