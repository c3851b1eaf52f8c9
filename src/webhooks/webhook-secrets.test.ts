import { randomBytes, randomUUID } from 'node:crypto';
import { expect, test } from 'vitest';
import { createSecretBox, createWebhookSecret, SECRET_PREFIX } from './webhook-secrets.ts';

const key = randomBytes(32);

test('a secret is whsec_ and 32 random bytes, a new one each time', () => {
  const secret = createWebhookSecret();
  expect(secret.startsWith(SECRET_PREFIX)).toBe(true);
  expect(Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')).toHaveLength(32);
  expect(createWebhookSecret()).not.toBe(secret);
});

test('sealed, a secret shows nothing of itself, and opens for its webhook under the same key in any process', async () => {
  const webhook = randomUUID();
  const secret = createWebhookSecret();
  const sealed = await createSecretBox(key).seal(webhook, secret);
  expect(sealed).not.toContain(secret.slice(SECRET_PREFIX.length, 20));
  expect(await createSecretBox(Buffer.from(key)).open(webhook, sealed)).toBe(secret);
  // Sealed twice, two tokens: nothing to compare between rows.
  expect(await createSecretBox(key).seal(webhook, secret)).not.toBe(sealed);
});

test('a sealed secret opens for no other webhook, under no other key, and not once edited', async () => {
  const box = createSecretBox(key);
  const webhook = randomUUID();
  const sealed = await box.seal(webhook, createWebhookSecret());
  await expect(box.open(randomUUID(), sealed)).rejects.toThrow(
    'not a sealed secret of this webhook',
  );
  await expect(createSecretBox(randomBytes(32)).open(webhook, sealed)).rejects.toThrow(
    'not a sealed secret of this webhook',
  );
  const edited = `${sealed.slice(0, -2)}${sealed.endsWith('A') ? 'B' : 'A'}${sealed.slice(-1)}`;
  await expect(box.open(webhook, edited)).rejects.toThrow('not a sealed secret of this webhook');
  await expect(box.open(webhook, 'v1.AAAA')).rejects.toThrow('not a sealed secret of this webhook');
});

test('the key must be 32 bytes', () => {
  expect(() => createSecretBox(randomBytes(16))).toThrow('32 bytes');
});
