import { simulatedEmbedding } from './simulated-embedding.ts';

/**
 * The Gemini simulator's embeddings, as Google's reference gives them:
 * `POST /v1beta/models/{model}:embedContent` takes one EmbedContentRequest (`content`, optional
 * `taskType`, `title`, `outputDimensionality`) and answers `{"embedding": {"values": […]}}`;
 * `:batchEmbedContents` takes `{"requests": [EmbedContentRequest…]}` (each naming the URL's
 * model as `models/{model}`, at most 100) and answers `{"embeddings": [{"values": […]}]}` in
 * request order. Only text parts are embedded. A vector has the model's full length (unit
 * length) unless `outputDimensionality` asks for fewer: those are the first dimensions of a
 * longer vector, not of unit length, as Google documents ("normalize them yourself"). Vectors
 * come from simulated-embedding.ts: texts that share words or pieces of words are near.
 */

/** The embedding models served, with their full vector length. */
const MODELS: Record<string, number> = {
  'gemini-embedding-001': 3072,
  'text-embedding-004': 768,
};

const TASK_TYPES = new Set([
  'TASK_TYPE_UNSPECIFIED',
  'RETRIEVAL_QUERY',
  'RETRIEVAL_DOCUMENT',
  'SEMANTIC_SIMILARITY',
  'CLASSIFICATION',
  'CLUSTERING',
  'QUESTION_ANSWERING',
  'FACT_VERIFICATION',
  'CODE_RETRIEVAL_QUERY',
]);

const MAX_BATCH = 100;

export interface WireError {
  code: number;
  message: string;
  status: string;
}

type Refusal = { readonly ok: false; readonly error: WireError };
export type EmbedAnswer = { readonly ok: true; readonly body: object } | Refusal;

const invalid = (message: string): Refusal => ({
  ok: false,
  error: { code: 400, message, status: 'INVALID_ARGUMENT' },
});

/** Answers `{model}:embedContent` or `{model}:batchEmbedContents` for an authenticated body. */
export function answerEmbedding(
  method: 'embedContent' | 'batchEmbedContents',
  model: string,
  body: Record<string, unknown>,
): EmbedAnswer {
  const size = MODELS[model];
  if (size === undefined) {
    return {
      ok: false,
      error: {
        code: 404,
        message: `models/${model} is not found for API version v1beta, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.`,
        status: 'NOT_FOUND',
      },
    };
  }
  if (method === 'embedContent') {
    const one = embedOne(body, { at: 'EmbedContentRequest', field: '' }, model, size, false);
    return 'error' in one ? one : { ok: true, body: { embedding: { values: one.values } } };
  }
  const { requests } = body;
  if (!Array.isArray(requests) || requests.length === 0) {
    return invalid('* BatchEmbedContentsRequest.requests: requests is not specified\n');
  }
  if (requests.length > MAX_BATCH) {
    return invalid(
      `* BatchEmbedContentsRequest.requests: at most ${MAX_BATCH} requests can be in one batch\n`,
    );
  }
  const embeddings: { values: number[] }[] = [];
  for (const [index, request] of requests.entries()) {
    const where = {
      at: `BatchEmbedContentsRequest.requests[${index}]`,
      field: `requests[${index}].`,
    };
    if (typeof request !== 'object' || request === null || Array.isArray(request)) {
      return invalid(`* ${where.at}: must be an EmbedContentRequest\n`);
    }
    const one = embedOne(request as Record<string, unknown>, where, model, size, true);
    if ('error' in one) return one;
    embeddings.push({ values: one.values });
  }
  return { ok: true, body: { embeddings } };
}

/** One EmbedContentRequest's vector; `where` names it in messages, as a path and a field prefix. */
function embedOne(
  request: Record<string, unknown>,
  where: { at: string; field: string },
  model: string,
  size: number,
  inBatch: boolean,
): { values: number[] } | Refusal {
  const { content, taskType, outputDimensionality } = request;
  const { at } = where;
  if (inBatch && request.model !== `models/${model}`) {
    const named = typeof request.model === 'string' ? request.model : '(none)';
    return invalid(
      `* ${at}.model: the model of each request (${named}) must be the batch's: models/${model}\n`,
    );
  }
  const parts = (content as { parts?: unknown } | undefined)?.parts;
  if (!Array.isArray(parts) || parts.length === 0) {
    return invalid(`* ${at}.content: contents is not specified\n`);
  }
  if (taskType !== undefined && !TASK_TYPES.has(taskType as string)) {
    return invalid(
      `Invalid value at '${where.field}task_type' (type.googleapis.com/google.ai.generativelanguage.v1beta.TaskType), ${JSON.stringify(taskType)}`,
    );
  }
  let dimensions = size;
  if (outputDimensionality !== undefined) {
    if (
      !Number.isInteger(outputDimensionality) ||
      (outputDimensionality as number) < 1 ||
      (outputDimensionality as number) > size
    ) {
      return invalid(
        `* ${at}.output_dimensionality: must be between 1 and ${size}, got ${String(outputDimensionality)}\n`,
      );
    }
    dimensions = outputDimensionality as number;
  }
  const text = parts
    .map((part: unknown) =>
      typeof part === 'object' &&
      part !== null &&
      typeof (part as { text?: unknown }).text === 'string'
        ? (part as { text: string }).text
        : '',
    )
    .join('');
  // The first dimensions of the full vector have the length of that share of it.
  const scale = Math.sqrt(dimensions / size);
  const vector = simulatedEmbedding(text, dimensions);
  return { values: Array.from(vector, (value) => value * scale) };
}
