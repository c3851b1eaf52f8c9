/**
 * Erasing a person, an end user or an app everywhere, in one transaction. This file is the part's
 * front door: what other parts may use of it. The rest of the folder is private to it.
 */
export type { IdentityErasure } from './identity-erasure.ts';
export { createIdentityErasure, createUncachedErasure } from './identity-erasure.ts';
