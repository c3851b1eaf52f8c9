/** The fewest characters a password may have (NIST SP 800-63B asks at least 8; we ask more). */
export const MIN_PASSWORD_CHARS = 12;
/** The most: scrypt hashes any length, but a megabyte a sign-in costs for nothing. */
export const MAX_PASSWORD_CHARS = 1000;

/**
 * Passwords of at least 12 characters that lead the lists of leaked ones (the most common of
 * that length in public breach corpora): the first a guesser tries. Compared lower-cased.
 */
const COMMON = new Set([
  '000000000000',
  '111111111111',
  '123123123123',
  '123456123456',
  '123456654321',
  '123456789012',
  '1234567890123',
  '12345678901234',
  '123456789123',
  '1234567891011',
  '1q2w3e4r5t6y',
  '1qaz2wsx3edc',
  '1qaz2wsx3edc4rfv',
  'aaaaaaaaaaaa',
  'abc123abc123',
  'abcd12345678',
  'abcdefghijkl',
  'administrator',
  'asdfghjkl123',
  'asdfghjklasdfghjkl',
  'baseball1234',
  'changeme1234',
  'correcthorsebatterystaple',
  'football1234',
  'iloveyou1234',
  'iloveyou12345',
  'letmein12345',
  'monkey123456',
  'password1234',
  'password12345',
  'password123456',
  'passwordpassword',
  'princess1234',
  'q1w2e3r4t5y6',
  'qwerty123456',
  'qwertyqwerty',
  'qwertyuiop12',
  'qwertyuiop123',
  'qwertyuiopasdfghjkl',
  'sunshine1234',
  'superman1234',
  'trustno1trustno1',
  'welcome12345',
  'zxcvbnm12345',
]);

/**
 * What is wrong with a new password, in a sentence for the person choosing it, or undefined:
 * at least 12 characters (and at most 1,000), not the account's email (nor the part before the
 * @), not one of the most common. The one rule for every password mnemo takes: sign-up,
 * invitations, resets, the operator's `mnemo admin user …`.
 */
export function passwordProblem(password: string, email: string | undefined): string | undefined {
  const length = [...password].length;
  if (length < MIN_PASSWORD_CHARS) {
    return `Use at least ${MIN_PASSWORD_CHARS} characters: a few words make a good password.`;
  }
  if (length > MAX_PASSWORD_CHARS) return `Use at most ${MAX_PASSWORD_CHARS} characters.`;
  const folded = password.trim().toLowerCase();
  if (email !== undefined) {
    const address = email.trim().toLowerCase();
    if (folded === address || folded === address.split('@')[0]) {
      return 'Your password must not be your email address.';
    }
  }
  if (COMMON.has(folded.replaceAll(' ', ''))) {
    return 'That password is one of the most common: choose another.';
  }
  return undefined;
}
