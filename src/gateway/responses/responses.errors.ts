import { GatewayError } from '../openai-errors.ts';

/**
 * The chat request's parameters that a Responses request names differently. An error about one
 * of them (a model that does not reason refusing `reasoning_effort`) is told in the terms the
 * caller used: the parameter, and its name in the message, as OpenAI's Responses API words it.
 */
const RESPONSES_NAMES: Readonly<Record<string, string>> = {
  reasoning_effort: 'reasoning.effort',
  max_completion_tokens: 'max_output_tokens',
  response_format: 'text.format',
};

export function inResponsesTerms(error: GatewayError): GatewayError {
  const { param } = error.body.error;
  const name = param === null ? undefined : RESPONSES_NAMES[param];
  if (param === null || name === undefined) return error;
  return new GatewayError(
    error.status,
    {
      ...error.body.error,
      param: name,
      message: error.body.error.message.replaceAll(`'${param}'`, `'${name}'`),
    },
    { ...error.headers },
  );
}
