import { API_KEY_PREFIX } from '../credentials/index.ts';
import type { ApiKeyRefusal } from '../keys/index.ts';
import { bearerChallenge } from '../platform/bearer.ts';
import { GatewayError } from './openai-errors.ts';

/**
 * What `/v1` says for each refused key, in OpenAI's words where OpenAI has them. Each message
 * keeps to RFC 6750's characters for `error_description` (printable ASCII without `"` and
 * `\`), where it is sent as well, and none repeats the key.
 */
export const API_KEY_MESSAGES: Readonly<Record<ApiKeyRefusal, string>> = {
  missing: `You didn't provide an API key. Send it in the Authorization header as a bearer token (Authorization: Bearer ${API_KEY_PREFIX}...).`,
  malformed: `Incorrect API key format: an API key is ${API_KEY_PREFIX} followed by 49 letters and digits, sent as Authorization: Bearer ${API_KEY_PREFIX}...`,
  'platform-credential': `A platform credential is not an API key: /v1 takes an API key (${API_KEY_PREFIX}...), created in the studio under Settings > API Keys or with POST /api/v1/api-keys; platform credentials (OAuth access tokens) are for the memory and platform APIs under /api.`,
  unknown: 'Incorrect API key provided.',
  revoked: 'This API key has been revoked.',
  expired: 'This API key has expired.',
  'owner-suspended': "This API key's user account is suspended.",
  'owner-banned': "This API key's user account is banned.",
  'owner-not-member': "This API key's user is no longer a member of its organization.",
};

/**
 * OpenAI's 401 for a refused key (`invalid_api_key`, as OpenAI answers a bad key), with RFC
 * 6750's challenge: the realm alone when no key was sent (§3.1), `invalid_token` and why when
 * one was.
 */
export function refusedApiKey(refusal: ApiKeyRefusal): GatewayError {
  const message = API_KEY_MESSAGES[refusal];
  const challenge =
    refusal === 'missing'
      ? bearerChallenge()
      : bearerChallenge({ error: 'invalid_token', description: message });
  return new GatewayError(
    401,
    { message, type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
    { 'www-authenticate': challenge },
  );
}
