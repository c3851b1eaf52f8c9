import type { EmbeddingPurpose, EmbeddingsFactory, Outcome } from '../../provider.ts';
import { inBatches, vectorOf } from '../embedding-batches.ts';
import { notExpected, readErrorBody, readJsonBody } from '../response-body.ts';
import { missingKey } from '../upstream-failure.ts';
import { geminiFailureOf } from './gemini.errors.ts';
import type { GeminiBatchEmbedRequest } from './gemini.types.ts';

/** Requests in one batchEmbedContents call: Google takes at most 100. */
const MAX_REQUESTS = 100;

/** Gemini's task types: a memory is a document to be found, a search's query looks for one. */
const TASK_TYPES: Record<EmbeddingPurpose, string> = {
  document: 'RETRIEVAL_DOCUMENT',
  query: 'RETRIEVAL_QUERY',
};

/**
 * Google's Gemini API, `POST /v1beta/models/{model}:batchEmbedContents` (what the Google Gen AI
 * SDK's `models.embedContent` calls): one EmbedContentRequest per text, each naming the model,
 * with the task type of its purpose and the catalog's `dimensions` as `outputDimensionality`;
 * the answer's `embeddings[].values` come in request order. The key in `x-goog-api-key`.
 *
 * @example
 * const embeddings = createGeminiEmbeddings(catalog.providers.get('google'), transport);
 * const outcome = await embeddings.embed({ texts, model, purpose: 'query', signal });
 */
export const createGeminiEmbeddings: EmbeddingsFactory = (config, transport) => {
  const models = `${config.baseUrl.replace(/\/+$/, '')}/v1beta/models/`;

  return {
    async embed(call) {
      if (config.apiKey === undefined) return missingKey(config);
      const { upstream, dimensions } = call.model;
      const url = `${models}${encodeURIComponent(upstream)}:batchEmbedContents`;
      const vectors: Float32Array[] = [];
      for (const texts of inBatches(call.texts, MAX_REQUESTS)) {
        const body: GeminiBatchEmbedRequest = {
          requests: texts.map((text) => ({
            model: `models/${upstream}`,
            content: { parts: [{ text }] },
            taskType: TASK_TYPES[call.purpose],
            ...(dimensions !== undefined && { outputDimensionality: dimensions }),
          })),
        };
        const sent = await transport.post(
          url,
          { 'x-goog-api-key': config.apiKey },
          JSON.stringify(body),
          call.signal,
        );
        if (!sent.ok) return sent;
        const response = sent.value;
        if (response.status !== 200) {
          return { ok: false, failure: geminiFailureOf(response, await readErrorBody(response)) };
        }
        const read = await readJsonBody(response, 'a BatchEmbedContentsResponse');
        if (!read.ok) return read;
        const batch = vectorsOf(read.value, texts.length);
        if (!batch.ok) return batch;
        vectors.push(...batch.value);
      }
      return { ok: true, value: vectors };
    },
  };
};

/** `{"embeddings": [{"values": [...]}]}`, one per request, in request order. */
function vectorsOf(body: unknown, count: number): Outcome<Float32Array[]> {
  const embeddings = (body as { embeddings?: unknown } | null)?.embeddings;
  if (!Array.isArray(embeddings) || embeddings.length !== count) {
    return notExpected('a BatchEmbedContentsResponse');
  }
  const vectors: Float32Array[] = [];
  for (const embedding of embeddings as { values?: unknown }[]) {
    const vector = vectorOf(embedding?.values);
    if (!vector) return notExpected('a BatchEmbedContentsResponse');
    vectors.push(vector);
  }
  return { ok: true, value: vectors };
}
