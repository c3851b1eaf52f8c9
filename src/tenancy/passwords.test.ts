import { describe, expect, test } from 'vitest';
import { hashPassword, verifyPassword } from './passwords.ts';

describe('passwords', () => {
  test('a hash names its parameters, is salted, and holds no trace of the password', async () => {
    const [first, second] = await Promise.all([hashPassword('hunter2'), hashPassword('hunter2')]);
    expect(first).toMatch(/^scrypt\$65536\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(second).not.toBe(first);
    expect(first).not.toContain('hunter2');
    expect(first).not.toContain(Buffer.from('hunter2').toString('base64url'));
  });

  test('verifies the password it was made from and no other', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(await verifyPassword('correct horse battery staple', stored)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', stored)).toBe(false);
    expect(await verifyPassword('Correct horse battery staple', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  test('composed and decomposed forms of a character are one password', async () => {
    const stored = await hashPassword('caf\u00e9');
    expect(await verifyPassword('cafe\u0301', stored)).toBe(true);
  });

  test('a malformed or out-of-bounds hash verifies nothing', async () => {
    const stored = await hashPassword('pw');
    const [, , , , salt, key] = stored.split('$');
    for (const bad of [
      '',
      'pw',
      `bcrypt$65536$8$1$${salt}$${key}`,
      `scrypt$65535$8$1$${salt}$${key}`,
      `scrypt$${2 ** 21}$8$1$${salt}$${key}`,
      `scrypt$65536$8$1$${salt}`,
      `scrypt$65536$8$1$$${key}`,
      `scrypt$65536$8$1$${salt}$AAAA`,
    ]) {
      expect(await verifyPassword('pw', bad), bad).toBe(false);
    }
  });
});
