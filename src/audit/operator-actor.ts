/**
 * The actor of a change an operator made with the `mnemo` command, who is no user: the nil UUID
 * (RFC 9562 §5.9), which no user has.
 */
export const OPERATOR_ACTOR_ID = '00000000-0000-0000-0000-000000000000';

/** How that actor is named to people (the studio's audit page names it so too): never as a user. */
export const OPERATOR_NAME = 'Operator (command line)';
