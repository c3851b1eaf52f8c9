/**
 * Invitations to join an organization, sent by email and taken on the sign-in pages. This file is
 * the part's front door: what other parts may use of it. The rest of the folder is private to it.
 */
export { registerInvitationsRoutes } from './invitations.routes.ts';
export type { InvitationsService } from './invitations.service.ts';
export { createInvitationsService, InvitationRefused } from './invitations.service.ts';
