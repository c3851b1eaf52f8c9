import { OPERATOR_ACTOR_ID } from '../audit/index.ts';
import type { Caller } from './authenticate.ts';

/**
 * The operator at the command line (`mnemo admin …`), acting in `orgId` with an owner's rights,
 * through the same services as the API, so that what it changes is checked and audited alike
 * (its actor is OPERATOR_ACTOR_ID). It is no account: it holds no grant, owns no store, and the
 * organization it names may not exist (the services that take it say so).
 */
export function operatorIn(orgId: string): Caller {
  return {
    userId: OPERATOR_ACTOR_ID,
    orgId,
    role: 'owner',
    memoryEnabled: null,
    userOverride: 'admins',
    scopes: undefined,
  };
}

export const isOperator = (caller: Caller): boolean => caller.userId === OPERATOR_ACTOR_ID;
