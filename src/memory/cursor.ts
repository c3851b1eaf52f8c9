import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../platform/errors.ts';
import { invalidCursor } from '../platform/paging.ts';

/** The memory store a cursor belongs to. */
export interface CursorScope {
  readonly orgId: string;
  readonly kind: 'user' | 'project';
  readonly ownerId: string;
}

const FORMAT = 1;
const MAC_BYTES = 16;
const LENGTH = 1 + 8 + MAC_BYTES;

export const expiredCursor = () =>
  new ApiError(
    410,
    'cursor_expired',
    'cursor can no longer be served: pull the full list again without since',
  );

/**
 * Cursors are opaque base64url: a format byte, the scope's change counter, and an HMAC over
 * both and the scope. The scope itself is not in the cursor: it is bound by the MAC, so a cursor
 * edited, or used with another organization, user or project, fails verification.
 */
export function createCursorCodec(secret: Buffer) {
  // A key object made once: from a raw Buffer, every HMAC would import the key again.
  const key = createSecretKey(secret);
  function mac(scope: CursorScope, body: Buffer): Buffer {
    return createHmac('sha256', key)
      .update(`${scope.orgId}\n${scope.kind}\n${scope.ownerId}\n`)
      .update(body)
      .digest()
      .subarray(0, MAC_BYTES);
  }

  return {
    encode(scope: CursorScope, version: number): string {
      const body = Buffer.alloc(9);
      body.writeUInt8(FORMAT, 0);
      body.writeBigUInt64BE(BigInt(version), 1);
      return Buffer.concat([body, mac(scope, body)]).toString('base64url');
    },

    /** The counter value the cursor stands for; throws 400 `invalid cursor` otherwise. */
    decode(scope: CursorScope, cursor: string): number {
      if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalidCursor();
      const bytes = Buffer.from(cursor, 'base64url');
      if (bytes.length !== LENGTH || bytes.readUInt8(0) !== FORMAT) throw invalidCursor();
      const body = bytes.subarray(0, 9);
      if (!timingSafeEqual(bytes.subarray(9), mac(scope, body))) throw invalidCursor();
      return Number(body.readBigUInt64BE(1));
    },
  };
}
export type CursorCodec = ReturnType<typeof createCursorCodec>;
