/**
 * Emails are stored lower-cased, so the unique constraint treats `Ada@Acme.test` and
 * `ada@acme.test` as one address; every lookup by address goes through this too.
 */
export const normalizeEmail = (email: string) => email.toLowerCase();
