import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { createSealer } from '../platform/sealing.ts';

/**
 * A webhook's signing secret: `whsec_` and 32 random bytes in base64, as the Standard Webhooks
 * specification writes them (its libraries take the secret as shown). Shown once, when made;
 * kept sealed (platform/sealing.ts) under a key of the instance's own for it (`webhook-secrets`,
 * db/instance-secrets.ts), bound to its webhook's id, so that every process can sign with it and
 * a read of the webhooks table alone shows none.
 */
export const SECRET_PREFIX = 'whsec_';

export function createWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

export interface SecretBox {
  seal(webhookId: string, secret: string): Promise<string>;
  /** The secret sealed for `webhookId`; throws for anything else. */
  open(webhookId: string, sealed: string): Promise<string>;
}

/** What is sealed: the secret with the webhook it belongs to, so that no other can use it. */
interface SealedSecret {
  readonly webhook: string;
  readonly secret: string;
}

export function createSecretBox(key: Uint8Array): SecretBox {
  const sealer = createSealer<'webhook-secret'>(key);
  return {
    seal: (webhookId, secret) =>
      sealer.seal('webhook-secret', { webhook: webhookId, secret } satisfies SealedSecret),
    async open(webhookId, sealed) {
      const opened = (await sealer.open('webhook-secret', sealed)) as SealedSecret | undefined;
      if (opened?.webhook !== webhookId) throw new Error('not a sealed secret of this webhook');
      return opened.secret;
    },
  };
}

/**
 * The headers of a delivery by the Standard Webhooks specification, signed with its library:
 * `webhook-id` (the event's id, the same on every attempt: a receiver drops what it has seen),
 * `webhook-timestamp` (the attempt's, in seconds) and `webhook-signature` (`v1,` and the
 * HMAC-SHA256 of `id.timestamp.body`).
 */
export function signedHeaders(
  signer: Webhook,
  eventId: string,
  at: Date,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signer.sign(eventId, at, body),
  };
}

export { Webhook };
