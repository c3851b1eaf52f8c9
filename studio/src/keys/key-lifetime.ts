import type { components } from '../api/openapi.d.ts';

export type ApiKey = components['schemas']['ApiKey'];

/** Whether a key still opens `/v1`: revoked and expired keys are refused with a 401. */
export type KeyState = 'active' | 'expired' | 'revoked';

/** What the playground calls the key it makes for itself (playground/temporary-key.ts). */
export const PLAYGROUND_KEY_NAME = 'Studio playground (temporary)';

/**
 * Whether a key is one the playground made for itself: of no interest once it has ended, so the
 * Keys page leaves those out unless asked. The API has no mark for them; the name and an expiry
 * (the playground never makes a key without one) tell them apart.
 */
export const isPlaygroundKey = (key: ApiKey): boolean =>
  key.name === PLAYGROUND_KEY_NAME && key.expiresAt !== null;

export function keyState(key: ApiKey, now = Date.now()): KeyState {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now) return 'expired';
  return 'active';
}

/** The lifetimes offered when a key is made. */
export type ExpiryChoice = 'never' | '30' | '90' | 'date';

const DAY_MS = 86_400_000;

/**
 * The `expiresAt` a choice asks for, or undefined for a key that never expires. A date (the
 * value of `<input type="date">`, `YYYY-MM-DD`) means the key works through that whole day in
 * the person's own time zone: it stops at the next midnight there.
 */
export function expiryFor(
  choice: ExpiryChoice,
  date: string,
  now = Date.now(),
): string | undefined {
  switch (choice) {
    case 'never':
      return undefined;
    case '30':
    case '90':
      return new Date(now + Number(choice) * DAY_MS).toISOString();
    case 'date': {
      const [year, month, day] = date.split('-').map(Number);
      if (!year || !month || !day) return undefined;
      return new Date(year, month - 1, day + 1).toISOString();
    }
  }
}

/** Today in the person's time zone as `<input type="date">` writes it: the earliest expiry date. */
export function today(now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}
