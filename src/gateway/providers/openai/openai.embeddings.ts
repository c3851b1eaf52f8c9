import type { EmbeddingsFactory, Outcome } from '../../provider.ts';
import { inBatches, vectorOf } from '../embedding-batches.ts';
import { notExpected, readErrorBody, readJsonBody } from '../response-body.ts';
import { statusFailure } from '../upstream-failure.ts';
import { openAiErrorOf } from './openai.errors.ts';

/** OpenAI's limit of inputs in one request ("any array must be 2048 dimensions or less"). */
const MAX_INPUTS = 2048;

/**
 * `POST {baseUrl}/embeddings` of OpenAI and the servers that imitate it (vLLM, Ollama, LiteLLM,
 * OpenRouter): `input` as an array of strings, the model's `dimensions` when the catalog sets
 * them, vectors asked for as floats (`encoding_format: "float"`, which every compatible server
 * speaks; base64 is read too), put back in input order by their `index`.
 *
 * @example
 * const embeddings = createOpenAiEmbeddings(catalog.providers.get('openai'), transport);
 * const outcome = await embeddings.embed({ texts, model, purpose: 'document', signal });
 */
export const createOpenAiEmbeddings: EmbeddingsFactory = (config, transport) => {
  const url = `${config.baseUrl.replace(/\/+$/, '')}/embeddings`;
  // A local server (Ollama, llama.cpp) may need no key at all.
  const headers: Record<string, string> =
    config.apiKey === undefined ? {} : { authorization: `Bearer ${config.apiKey}` };

  return {
    async embed(call) {
      const vectors: Float32Array[] = [];
      for (const input of inBatches(call.texts, MAX_INPUTS)) {
        const body = {
          model: call.model.upstream,
          input,
          encoding_format: 'float',
          ...(call.model.dimensions !== undefined && { dimensions: call.model.dimensions }),
        };
        const sent = await transport.post(url, headers, JSON.stringify(body), call.signal);
        if (!sent.ok) return sent;
        const response = sent.value;
        if (response.status !== 200) {
          const error = openAiErrorOf(response.status, await readErrorBody(response));
          return { ok: false, failure: statusFailure(response, error) };
        }
        const read = await readJsonBody(response, 'an embedding list');
        if (!read.ok) return read;
        const batch = vectorsOf(read.value, input.length);
        if (!batch.ok) return batch;
        vectors.push(...batch.value);
      }
      return { ok: true, value: vectors };
    },
  };
};

/** `{"object": "list", "data": [{"index", "embedding"}]}`: one vector per input, by index. */
function vectorsOf(body: unknown, count: number): Outcome<Float32Array[]> {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length !== count) return notExpected('an embedding list');
  const vectors: (Float32Array | undefined)[] = new Array(count);
  for (const item of data as { index?: unknown; embedding?: unknown }[]) {
    const index = item?.index;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count) {
      return notExpected('an embedding list');
    }
    vectors[index] = vectorOf(item.embedding);
  }
  const whole = vectors.filter((vector): vector is Float32Array => vector !== undefined);
  if (whole.length !== count) return notExpected('an embedding list');
  return { ok: true, value: whole };
}
