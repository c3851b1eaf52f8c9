import type { ServerResponse } from 'node:http';
import { estimateTokens } from './scripted-text.ts';
import { simulatedEmbedding, simulatedTokenEmbedding } from './simulated-embedding.ts';

/**
 * The OpenAI simulator's `POST /v1/embeddings`, as the API reference gives it: `input` a string,
 * an array of strings, an array of token ids or an array of such arrays (never empty, at most
 * 2,048 entries, no empty string); `model` one of OpenAI's embedding models; `dimensions` only
 * for text-embedding-3 models, up to their own size; `encoding_format` `float` (the default) or
 * `base64` (little-endian float32, what the official SDKs ask for and decode). The answer is a
 * `list` of `embedding` objects in input order, each of unit length (OpenAI normalizes a
 * shortened vector too), with the model's name and a usage of prompt tokens (an estimate:
 * characters / 4, or the count of token ids). Vectors come from simulated-embedding.ts: texts
 * that share words or pieces of words are near.
 */

/** OpenAI's embedding models: their vectors' full length, and whether `dimensions` is taken. */
const MODELS: Record<string, { dimensions: number; shortens: boolean }> = {
  'text-embedding-3-small': { dimensions: 1536, shortens: true },
  'text-embedding-3-large': { dimensions: 3072, shortens: true },
  'text-embedding-ada-002': { dimensions: 1536, shortens: false },
};

/** "any array must be 2048 dimensions or less". */
const MAX_INPUTS = 2048;

export interface EmbeddingsWire {
  readonly sendJson: (res: ServerResponse, status: number, body: unknown) => void;
}

interface WireError {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

const invalid = (message: string, param: string | null = null): WireError => ({
  message,
  type: 'invalid_request_error',
  param,
  code: null,
});

/** The input's texts (or token lists), or undefined when `input` is not a valid one. */
function inputsOf(input: unknown): (string | number[])[] | undefined {
  const isTokens = (value: unknown): value is number[] =>
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((token) => Number.isInteger(token) && (token as number) >= 0);
  if (typeof input === 'string') return input === '' ? undefined : [input];
  if (!Array.isArray(input) || input.length === 0 || input.length > MAX_INPUTS) return undefined;
  if (isTokens(input)) return [input];
  if (input.every((item) => typeof item === 'string' && item !== '')) return input as string[];
  if (input.every(isTokens)) return input;
  return undefined;
}

/** Answers one embeddings request, already authenticated and parsed. */
export function answerEmbeddings(
  res: ServerResponse,
  body: Record<string, unknown>,
  wire: EmbeddingsWire,
) {
  const fail = (status: number, error: WireError) => wire.sendJson(res, status, { error });
  const { model, input, dimensions, encoding_format: encoding } = body;
  if (typeof model !== 'string' || model === '') {
    return fail(400, invalid('you must provide a model parameter'));
  }
  if (input === undefined) return fail(400, invalid("'input' is a required property"));
  const inputs = inputsOf(input);
  if (!inputs) {
    return fail(
      400,
      invalid(
        "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.",
      ),
    );
  }
  if (encoding !== undefined && encoding !== 'float' && encoding !== 'base64') {
    return fail(
      400,
      invalid(
        `Invalid value for 'encoding_format': ${JSON.stringify(encoding)}. Supported values are: 'float' and 'base64'.`,
        'encoding_format',
      ),
    );
  }
  const known = MODELS[model];
  if (!known) {
    return fail(404, {
      message: `The model \`${model}\` does not exist or you do not have access to it.`,
      type: 'invalid_request_error',
      param: null,
      code: 'model_not_found',
    });
  }
  let size = known.dimensions;
  if (dimensions !== undefined) {
    if (!known.shortens) {
      return fail(400, invalid('This model does not support specifying dimensions.'));
    }
    if (
      !Number.isInteger(dimensions) ||
      (dimensions as number) < 1 ||
      (dimensions as number) > size
    ) {
      return fail(
        400,
        invalid(
          `Invalid value for 'dimensions' = ${String(dimensions)}. Must be between 1 and ${size}.`,
          'dimensions',
        ),
      );
    }
    size = dimensions as number;
  }
  let tokens = 0;
  const data = inputs.map((item, index) => {
    const vector =
      typeof item === 'string'
        ? simulatedEmbedding(item, size)
        : simulatedTokenEmbedding(item, size);
    tokens += typeof item === 'string' ? estimateTokens(item) : item.length;
    return {
      object: 'embedding',
      index,
      embedding:
        encoding === 'base64'
          ? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64')
          : Array.from(vector),
    };
  });
  wire.sendJson(res, 200, {
    object: 'list',
    data,
    model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}
