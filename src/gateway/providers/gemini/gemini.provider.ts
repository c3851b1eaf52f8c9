import type { ModelConfig } from '../../catalog.ts';
import type { Outcome, ProviderCall, ProviderFactory, TransportResponse } from '../../provider.ts';
import { notExpected, readErrorBody, readJsonBody } from '../response-body.ts';
import { missingKey } from '../upstream-failure.ts';
import { geminiFailureOf } from './gemini.errors.ts';
import { toGenerateContentRequest } from './gemini.mapping.ts';
import { isGenerateContentResponse, toChatCompletion } from './gemini.response.ts';
import { geminiChunks } from './gemini.stream.ts';

/**
 * Google's Gemini API (`v1beta`): chat completions translated to models.generateContent, and
 * streams to models.streamGenerateContent with `alt=sse`, the key in `x-goog-api-key`. A
 * request the mapping cannot express (tool arguments that are not a JSON object, an image URL
 * that is neither http(s) nor base64 data) fails as a 400 before anything is sent.
 *
 * @example
 * const provider = createGeminiProvider(catalog.providers.get('google'), transport);
 * const outcome = await provider.complete({ request, model, signal });
 */
export const createGeminiProvider: ProviderFactory = (config, transport) => {
  const models = `${config.baseUrl.replace(/\/+$/, '')}/v1beta/models/`;
  const urlOf = (model: ModelConfig, stream: boolean) =>
    `${models}${encodeURIComponent(model.upstream)}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;

  /** Sends the call; settles with the answer once its status is 200, else with the failure. */
  async function send(call: ProviderCall, stream: boolean): Promise<Outcome<TransportResponse>> {
    if (config.apiKey === undefined) return missingKey(config);
    const mapped = toGenerateContentRequest(call.request, call.model);
    if (!mapped.ok) {
      return { ok: false, failure: { kind: 'status', status: 400, error: mapped.error } };
    }
    const sent = await transport.post(
      urlOf(call.model, stream),
      { 'x-goog-api-key': config.apiKey },
      JSON.stringify(mapped.value),
      call.signal,
    );
    if (!sent.ok || sent.value.status === 200) return sent;
    return { ok: false, failure: geminiFailureOf(sent.value, await readErrorBody(sent.value)) };
  }

  return {
    async complete(call) {
      const sent = await send(call, false);
      if (!sent.ok) return sent;
      const body = await readJsonBody(sent.value, 'a GenerateContentResponse');
      if (!body.ok) return body;
      if (!isGenerateContentResponse(body.value)) return notExpected('a GenerateContentResponse');
      return toChatCompletion(body.value, call.model.id);
    },

    async stream(call) {
      const sent = await send(call, true);
      if (!sent.ok) return sent;
      return { ok: true, value: geminiChunks(sent.value.body, call.model.id) };
    },
  };
};
