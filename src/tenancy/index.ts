/**
 * Who is who: accounts, organizations, members and roles, projects and their grants, and the
 * caller a request is admitted as. This file is the part's front door: what other parts may use of
 * it. The rest of the folder is private to it.
 */
export { purgeExpiredAccountLinks } from './account-links.repository.ts';
export { endAccountSessions } from './account-sessions.ts';
export type { AccountsService } from './accounts.service.ts';
export { createAccountsService } from './accounts.service.ts';
export { accountNotActive, notAMember } from './admission.errors.ts';
export { registerAuditRoutes } from './audit.routes.ts';
export type {
  Account,
  Caller,
  PlatformAuthentication,
  PlatformAuthenticationDeps,
  ReadAlong,
} from './authenticate.ts';
export {
  createAdmission,
  createPlatformAuthentication,
  createRequestLimits,
  tooManyRequests,
} from './authenticate.ts';
export { registerCollaboratorsRoutes } from './collaborators.routes.ts';
export { createCollaboratorsService } from './collaborators.service.ts';
export { DEMO_EMAIL, ensureDemoAccount } from './demo-seed.ts';
export { normalizeEmail } from './email-address.ts';
export { registerMeRoutes } from './me.routes.ts';
export { registerMembersRoutes } from './members.routes.ts';
export { createMembersService } from './members.service.ts';
export { memoryEnabled } from './memory-rollout.ts';
export { byName } from './names.ts';
export { operatorIn } from './operator.ts';
export { orgScopedHooks } from './org-scoped-hooks.ts';
export { organizationInPath } from './organization-in-path.ts';
export {
  callerContextQuery,
  createMemberRoleReader,
  deleteMembership,
  findMember,
  findOrganization,
  listUserOrganizations,
  toCallerContext,
  upsertMembership,
} from './orgs.repository.ts';
export { registerOrgRoutes } from './orgs.routes.ts';
export {
  adminSecurity,
  MemberRole,
  MeResponse,
  Name,
  OkResponse,
  OrgIdParams,
} from './orgs.schemas.ts';
export type { OrganizationsService } from './orgs.service.ts';
export { createOrganizationsService } from './orgs.service.ts';
export type { PasswordReset } from './password-reset.service.ts';
export { createPasswordReset, ResetRefused } from './password-reset.service.ts';
export { passwordProblem } from './password-rule.ts';
export { hashPassword, verifyPassword } from './passwords.ts';
export { projectOrganizationInPath } from './project-in-path.ts';
export { projectForbidden, projectNotFound } from './projects.errors.ts';
export {
  canEdit,
  canRead,
  createProjectAccessReader,
  deleteOrganizationGrants,
} from './projects.repository.ts';
export { registerProjectsRoutes } from './projects.routes.ts';
export { Project } from './projects.schemas.ts';
export type { ProjectsService } from './projects.service.ts';
export {
  createProjectsService,
  grantProjectAccess,
  revokeProjectAccess,
} from './projects.service.ts';
export { requireManager } from './roles.ts';
export { issueSignInTicket, takeSignInTicket, ticketCookie, ticketOf } from './sign-in-tickets.ts';
export type { SignUp } from './sign-up.service.ts';
export { createSignUp, SignUpRefused } from './sign-up.service.ts';
export {
  deleteErasedUser,
  deleteUnreferencedUser,
  findUser,
  findUserIdByEmail,
  insertIdentity,
  insertUser,
  lockUserRow,
  updateUserName,
} from './users.repository.ts';
