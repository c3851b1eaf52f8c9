import type {
  ChatCompletion,
  Outcome,
  ProviderCall,
  ProviderFactory,
  TransportResponse,
} from '../../provider.ts';
import { notExpected, readErrorBody, readJsonBody } from '../response-body.ts';
import { estimatedUsage, messageChars } from '../token-estimate.ts';
import { statusFailure } from '../upstream-failure.ts';
import { openAiErrorOf } from './openai.errors.ts';
import { reasoningFromUpstream, reasoningToUpstream } from './openai.reasoning.ts';
import { openAiChunks } from './openai.stream.ts';

/**
 * OpenAI and every server that speaks its chat completions (vLLM, Ollama, llama.cpp, Groq,
 * OpenRouter): the request goes through as the client sent it, with the upstream model name
 * (assistant turns' reasoning as openai.reasoning.ts sends it back), and the answer comes back
 * with the catalog's model id and its reasoning in the gateway's words. Streams always ask for usage
 * (`stream_options.include_usage`), which the gateway records whether or not the client asked.
 *
 * @example
 * const provider = createOpenAiProvider(catalog.providers.get('openai'), transport);
 * const outcome = await provider.complete({ request, model, signal });
 */
export const createOpenAiProvider: ProviderFactory = (config, transport) => {
  const url = `${config.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  // A local server (Ollama, llama.cpp) may need no key at all.
  const headers: Record<string, string> =
    config.apiKey === undefined ? {} : { authorization: `Bearer ${config.apiKey}` };

  const send = async (call: ProviderCall, stream: boolean) => {
    const { stream_options, ...request } = call.request;
    // `reasoning_effort` goes through as the client sent it; reasoning_details are filtered.
    const rest = { ...request, messages: reasoningToUpstream(request.messages) };
    const body = stream
      ? {
          ...rest,
          model: call.model.upstream,
          stream: true,
          stream_options: { ...stream_options, include_usage: true },
        }
      : // OpenAI refuses stream_options on a request that does not stream.
        { ...rest, model: call.model.upstream, stream: false };
    return transport.post(url, headers, JSON.stringify(body), call.signal);
  };

  return {
    async complete(call) {
      const sent = await send(call, false);
      if (!sent.ok) return sent;
      const response = sent.value;
      if (response.status !== 200) return failed(response);
      const body = await readJsonBody(response, 'a chat completion');
      if (!body.ok) return body;
      const completion = body.value as ChatCompletion;
      if (!Array.isArray(completion?.choices)) return notExpected('a chat completion');
      completion.model = call.model.id;
      for (const choice of completion.choices) {
        if (choice.message) reasoningFromUpstream(choice.message);
      }
      // A compatible server that reports no usage: counted from the texts.
      completion.usage ??= estimatedUsage(
        call.request,
        completion.choices.reduce((sum, choice) => sum + messageChars(choice.message), 0),
      );
      return { ok: true, value: completion };
    },

    async stream(call) {
      const sent = await send(call, true);
      if (!sent.ok) return sent;
      const response = sent.value;
      if (response.status !== 200) return failed(response);
      return { ok: true, value: openAiChunks(response.body, call) };
    },
  };
};

async function failed(response: TransportResponse): Promise<Outcome<never>> {
  return {
    ok: false,
    failure: statusFailure(response, openAiErrorOf(response.status, await readErrorBody(response))),
  };
}
