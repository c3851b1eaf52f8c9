import type { Generated, Insertable, Selectable } from 'kysely';

/** Times are milliseconds since the epoch, UTC; ids are UUID strings. */
export interface UsersTable {
  id: string;
  /** Lower-cased; null for end users and apps, who never sign in. */
  email: string | null;
  name: string | null;
  password_hash: string | null;
  /** `erased`: an identity erased with everything it held; its id alone is kept. */
  status: 'active' | 'suspended' | 'banned' | 'erased';
  /**
   * A person signs in; an end user is a person an app remembers, registered under the app's own
   * id (`end_users`); an app is the service identity of an organization's OAuth client.
   */
  kind: Generated<UserKind>;
  created_at: number;
}

export type UserKind = 'person' | 'end_user' | 'app';

/** An end user's id in the app's own terms: one per organization. */
export interface EndUsersTable {
  user_id: string;
  org_id: string;
  external_id: string;
  /** `external_id` and the user's name lower-cased, for prefix search. */
  external_key: string;
  name_key: string | null;
  created_at: number;
}

/** An invitation to join an organization: only the SHA-256 of its secret is kept. */
export interface InvitationsTable {
  id: string;
  org_id: string;
  /** Lower-cased. */
  email: string;
  role: MemberRole;
  secret_hash: string;
  invited_by: string;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
  accepted_by: string | null;
  revoked_at: number | null;
}

export type AccountLinkPurpose = 'sign-up' | 'password-reset' | 'sign-in';

/**
 * A single-use secret that does one thing for an account: confirm a sign-up (the account is
 * made then, from `details`), set a new password, or sign a browser in once after either or
 * after joining by invitation. Only its SHA-256 is kept.
 */
export interface AccountLinksTable {
  id: string;
  purpose: AccountLinkPurpose;
  secret_hash: string;
  user_id: string | null;
  email: string | null;
  /** JSON. */
  details: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
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
  /**
   * The content's search terms (src/platform/search-analyzer.ts), space-separated; empty for a
   * tombstone. Each engine indexes them: SQLite's FTS5 table `memory_search` through triggers,
   * PostgreSQL's generated `search_vector` column.
   */
  search_terms: Generated<string>;
}

/**
 * Per store: its memories that have search terms, and their terms in all (a memory's count is
 * its terms' spaces and one), kept by triggers on memories; what search's weights are counted
 * over (src/memory/search-ranking.ts).
 */
export interface MemorySearchCountsTable {
  scope_id: string;
  memories: number;
  terms: number;
}

/**
 * A memory's vector under one embedding model (src/memory/embedding-indexer.ts): computed from
 * the memory at `memory_version` (older than the memory's: stale, never ranked); little-endian
 * float32 of unit length, or empty when the provider refused the text.
 */
export interface MemoryEmbeddingsTable {
  memory_id: string;
  model: string;
  memory_version: number;
  vector: Uint8Array;
}

/** Per store and model: every active memory of version up to `version` has its vector. */
export interface MemoryEmbeddingProgressTable {
  scope_id: string;
  model: string;
  version: number;
}

export interface AuditLogTable {
  id: string;
  org_id: string;
  actor_id: string;
  target_id: string;
  action: string;
  memory_id: string | null;
  at: number;
  /** JSON object: what changed (a role, a name, …); null for memory overrides. */
  details: string | null;
}

/** An API key of the chat interface: only the SHA-256 of its secret is kept. */
export interface ApiKeysTable {
  id: string;
  org_id: string;
  user_id: string;
  project_id: string | null;
  name: string;
  /** The secret's first characters, for telling keys apart in lists. */
  prefix: string;
  /** SHA-256 of the secret, base64url. */
  secret_hash: string;
  created_at: number;
  last_used_at: number | null;
  expires_at: number | null;
  revoked_at: number | null;
  /** What a chat call does with memory when it does not say (docs/memory-chat.md). */
  memory: Generated<MemoryMode>;
  /** The most memory any chat call with the key may use, whatever it asks. */
  memory_access: Generated<MemoryMode>;
}

/** Memory in a chat call: none, recall, or recall and learning (docs/memory-chat.md). */
export type MemoryMode = 'off' | 'read' | 'read-write';

/** One call of the chat interface. */
export interface UsageRecordsTable {
  id: string;
  at: number;
  org_id: string;
  user_id: string;
  key_id: string;
  model: string;
  provider: string;
  prompt_tokens: number;
  completion_tokens: number;
  /** Of the completion tokens, those a reasoning model spent thinking; 0 when none or unknown. */
  reasoning_tokens: Generated<number>;
  total_tokens: number;
  /** Millionths of a US dollar; null when the model had no price (the cost is not known). */
  cost_micro_usd: number | null;
  latency_ms: number;
  /** The HTTP status the caller got. */
  status: number;
  /** A client's call, or the extraction call that learned memories from one. */
  kind: Generated<'chat' | 'extraction'>;
}

/** A memory an extraction call found, waiting for its owner to accept or drop it. */
export interface MemoryProposalsTable {
  id: string;
  org_id: string;
  user_id: string;
  key_id: string;
  /** The project pool it would go to; null for the user's own store. */
  project_id: string | null;
  action: 'add' | 'update';
  /** The memory an update would change; null for an add. */
  memory_id: string | null;
  content: string;
  category: string | null;
  created_at: number;
}

export interface SigningKeysTable {
  kid: string;
  private_jwk: string;
  public_jwk: string;
  created_at: number;
  /** The latest expiry of a token this key may have signed; 0 before it signed any. */
  expires_at: Generated<number>;
}

/** A client registered by an operator (`mnemo admin client create`). */
export interface OAuthClientsTable {
  /** `mnemo_client_…`: never shaped like a UUID, so it cannot be taken for a user's `sub`. */
  id: string;
  name: string;
  type: 'public' | 'confidential';
  /** SHA-256 (base64url) of the secret of a confidential client; the secret is shown once. */
  secret_hash: string | null;
  /** JSON array of exact redirect URIs. */
  redirect_uris: string;
  /** JSON array of OAuth grant type identifiers. */
  grant_types: string;
  /** The user a client-credentials client acts as. */
  service_user_id: string | null;
  /** The organization of an app (a client registered by its owners); null: an operator's. */
  org_id: Generated<string | null>;
  /** An app's request rate, above the default, given by its owners; null: the default. */
  rate_limit_per_minute: Generated<number | null>;
  created_at: number;
}

/**
 * oidc-provider's records (Session, Grant, AuthorizationCode, RefreshToken, DeviceCode,
 * Interaction, …), one row per (model, id), the payload as JSON.
 */
export interface OAuthRecordsTable {
  model: string;
  id: string;
  payload: string;
  grant_id: string | null;
  user_code: string | null;
  uid: string | null;
  /** Milliseconds since the epoch; null: kept until destroyed. */
  expires_at: number | null;
  consumed_at: number | null;
  /** The account a session, grant or token belongs to: a new password ends them all. */
  account_id: Generated<string | null>;
}

/**
 * A person's connection of an MCP client (a grant of the authorization server for the MCP
 * resource), and the organization its tools act in.
 */
export interface OAuthConnectionsTable {
  /** A UUID: the connection's id in the API and in its tokens (`mnemo_connection`). */
  id: string;
  /** oidc-provider's grant: revoking the connection revokes it. */
  grant_id: string;
  user_id: string;
  client_id: string;
  /** As the consent page showed it. */
  client_name: string;
  org_id: string;
  created_at: number;
}

/**
 * A webhook: an organization's (or one project's) subscription to events, delivered to `url`
 * signed with its secret (docs/webhooks.md).
 */
export interface WebhooksTable {
  id: string;
  org_id: string;
  /** Only this project pool's events; null: the whole organization's. */
  project_id: string | null;
  url: string;
  description: string | null;
  /** JSON array of event types; null: every type, those added later too. */
  events: string | null;
  /** The signing secret (`whsec_…`), sealed under the instance's key for it. */
  secret: string;
  /** 1 enabled, 0 disabled (by hand, or after 24 hours of failed deliveries). */
  enabled: number;
  disabled_reason: string | null;
  disabled_at: number | null;
  created_by: string;
  created_at: number;
  updated_at: number;
}

/**
 * The outbox: one row per event, written in the transaction of the change. `seq` orders the
 * events of a store; `payload` (the body's `data`) is dropped once every delivery of it is done.
 */
export interface WebhookEventsTable {
  seq: Generated<number>;
  /** A UUID: the `webhook-id` of its deliveries. */
  id: string;
  org_id: string;
  type: string;
  /** `user:{id}` or `project:{id}`: the store whose order it keeps; null for a test event. */
  store_key: string | null;
  /** JSON: the store as the body names it; null for a test event. */
  store: string | null;
  /** The person whose store it is (an erasure takes their events away); null for a pool. */
  person_id: string | null;
  /** The memory it carries, if any. */
  memory_id: string | null;
  /** JSON: the body's `data`; null once delivered everywhere. */
  payload: string | null;
  created_at: number;
}

export type WebhookDeliveryStatus = 'pending' | 'retrying' | 'delivered' | 'failed';

/** One event for one webhook: its attempts so far, and the last one's outcome. */
export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  event_seq: number;
  /** The event's store key, here for the order check; null for a test delivery. */
  store_key: string | null;
  status: WebhookDeliveryStatus;
  attempts: number;
  /** When it is due next; null once delivered or failed. */
  next_attempt_at: number | null;
  /** When its current run of failures began: retried until 24 hours after it. */
  retry_since: number | null;
  /** A worker's claim: no other attempt before it runs out. */
  lease_until: number | null;
  lease_token: string | null;
  response_status: number | null;
  latency_ms: number | null;
  error: string | null;
  /** The start of the last response's body, for the log. */
  response_body: string | null;
  created_at: number;
  last_attempt_at: number | null;
  delivered_at: number | null;
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
  memory_embeddings: MemoryEmbeddingsTable;
  memory_embedding_progress: MemoryEmbeddingProgressTable;
  memory_search_counts: MemorySearchCountsTable;
  audit_log: AuditLogTable;
  signing_keys: SigningKeysTable;
  instance_secrets: InstanceSecretsTable;
  oauth_clients: OAuthClientsTable;
  oauth_records: OAuthRecordsTable;
  oauth_connections: OAuthConnectionsTable;
  api_keys: ApiKeysTable;
  usage_records: UsageRecordsTable;
  memory_proposals: MemoryProposalsTable;
  end_users: EndUsersTable;
  invitations: InvitationsTable;
  account_links: AccountLinksTable;
  webhooks: WebhooksTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

/** A memory as the service sees it: its search terms are the repository's to write. */
export type MemoryRow = Omit<Selectable<MemoriesTable>, 'search_terms'>;
export type NewMemoryRow = Insertable<MemoriesTable>;
export type UserRow = Selectable<UsersTable>;
export type OrganizationRow = Selectable<OrganizationsTable>;
