import type { Generated, Insertable, Selectable } from 'kysely';

/** Times are milliseconds since the epoch, UTC; ids are UUID strings. */
export interface UsersTable {
  id: string;
  email: string;
  name: string | null;
  password_hash: string | null;
  status: 'active' | 'suspended' | 'banned';
  created_at: number;
}

export interface OrganizationsTable {
  id: string;
  name: string;
  /** null: not set (on in sandbox and staging, off in production); 1 on; 0 off. */
  memory_enabled: number | null;
  user_override: 'members' | 'admins';
  created_at: number;
}

export type MemberRole = 'owner' | 'admin' | 'member';

export interface MembershipsTable {
  org_id: string;
  user_id: string;
  role: MemberRole;
  created_at: number;
}

export interface ProjectsTable {
  id: string;
  org_id: string;
  name: string;
  created_at: number;
}

export type ProjectAccess = 'viewer' | 'editor' | 'owner';

export interface ProjectAccessTable {
  project_id: string;
  user_id: string;
  access: ProjectAccess;
  created_at: number;
}

/**
 * One row per memory store: a user's personal store in an organization, or a project pool.
 * `version` is the change counter that cursors point into; `purged_version` is the highest
 * version of a tombstone removed by retention (a cursor below it can no longer be served).
 */
export interface ScopesTable {
  id: string;
  org_id: string;
  kind: 'user' | 'project';
  owner_id: string;
  version: Generated<number>;
  purged_version: Generated<number>;
}

export interface MemoriesTable {
  id: string;
  scope_id: string;
  contributor_id: string;
  content: string;
  /** SHA-256 of the normalized content, for folding equal saves. */
  fold_key: string;
  category: string | null;
  created_at: number;
  updated_at: number;
  version: number;
  deleted_at: number | null;
}

export interface AuditLogTable {
  id: string;
  org_id: string;
  actor_id: string;
  target_id: string;
  action: string;
  memory_id: string | null;
  at: number;
}

export interface SigningKeysTable {
  kid: string;
  private_jwk: string;
  public_jwk: string;
  created_at: number;
}

export interface InstanceSecretsTable {
  name: string;
  value: string;
}

export interface Tables {
  users: UsersTable;
  organizations: OrganizationsTable;
  memberships: MembershipsTable;
  projects: ProjectsTable;
  project_access: ProjectAccessTable;
  scopes: ScopesTable;
  memories: MemoriesTable;
  audit_log: AuditLogTable;
  signing_keys: SigningKeysTable;
  instance_secrets: InstanceSecretsTable;
}

export type MemoryRow = Selectable<MemoriesTable>;
export type NewMemoryRow = Insertable<MemoriesTable>;
export type UserRow = Selectable<UsersTable>;
export type OrganizationRow = Selectable<OrganizationsTable>;
