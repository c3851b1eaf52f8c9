import { randomUUID } from 'node:crypto';
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { OAuthConnectionsTable, Tables } from '../db/tables.ts';

/** A person's connection of an MCP client, as the API shows it. */
export interface Connection {
  readonly id: string;
  readonly clientId: string;
  readonly clientName: string;
  readonly organization: { readonly id: string; readonly name: string };
  readonly createdAt: number;
}

export interface NewConnection {
  readonly grantId: string;
  readonly userId: string;
  readonly clientId: string;
  readonly clientName: string;
  readonly orgId: string;
}

/**
 * Records the organization chosen for a grant; a grant consented to again (the same client in
 * the same browser session) keeps its connection and takes the new choice. Returns its id.
 */
export async function saveConnection(
  trx: Kysely<Tables>,
  connection: NewConnection,
  now = Date.now(),
): Promise<string> {
  await trx
    .insertInto('oauth_connections')
    .values({
      id: randomUUID(),
      grant_id: connection.grantId,
      user_id: connection.userId,
      client_id: connection.clientId,
      client_name: connection.clientName,
      org_id: connection.orgId,
      created_at: now,
    })
    .onConflict((oc) =>
      oc
        .column('grant_id')
        .doUpdateSet({ org_id: connection.orgId, client_name: connection.clientName }),
    )
    .execute();
  const row = await trx
    .selectFrom('oauth_connections')
    .select('id')
    .where('grant_id', '=', connection.grantId)
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The connection of a grant, for the claims of its MCP tokens; undefined when there is none. */
export async function findConnectionOfGrant(
  db: Kysely<Tables>,
  grantId: string,
): Promise<{ id: string; orgId: string } | undefined> {
  const row = await db
    .selectFrom('oauth_connections')
    .select(['id', 'org_id'])
    .where('grant_id', '=', grantId)
    .executeTakeFirst();
  return row && { id: row.id, orgId: row.org_id };
}

/**
 * The organization a token's connection acts in, when the connection is still there and is the
 * token's own (its person and client); undefined once revoked.
 */
export async function findLiveConnection(
  db: Kysely<Tables>,
  key: { id: string; userId: string; clientId: string },
): Promise<{ orgId: string } | undefined> {
  const row = await db
    .selectFrom('oauth_connections')
    .select('org_id')
    .where('id', '=', key.id)
    .where('user_id', '=', key.userId)
    .where('client_id', '=', key.clientId)
    .executeTakeFirst();
  return row && { orgId: row.org_id };
}

/**
 * The person's connections whose grant is still in force, newest first, with the name of each
 * one's organization.
 */
export async function listConnections(
  db: Kysely<Tables>,
  userId: string,
  now = Date.now(),
): Promise<Connection[]> {
  const rows = await db
    .selectFrom('oauth_connections as c')
    .innerJoin('organizations as o', 'o.id', 'c.org_id')
    .select(['c.id', 'c.client_id', 'c.client_name', 'c.org_id', 'o.name', 'c.created_at'])
    .where('c.user_id', '=', userId)
    .where((eb) => eb.exists(liveGrant(eb, now)))
    .orderBy('c.created_at', 'desc')
    .orderBy('c.id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    clientId: row.client_id,
    clientName: row.client_name,
    organization: { id: row.org_id, name: row.name },
    createdAt: Number(row.created_at),
  }));
}

/** The grant record a connection (`c`) stands for, unless it expired. */
function liveGrant(eb: ExpressionBuilder<Tables & { c: OAuthConnectionsTable }, 'c'>, now: number) {
  return eb
    .selectFrom('oauth_records as r')
    .select('r.id')
    .where('r.model', '=', 'Grant')
    .whereRef('r.id', '=', 'c.grant_id')
    .where((r) => r.or([r('r.expires_at', 'is', null), r('r.expires_at', '>', now)]));
}

/** Removes the person's connection; its grant id, or undefined when they have no such one. */
export async function deleteConnection(
  trx: Kysely<Tables>,
  userId: string,
  id: string,
): Promise<string | undefined> {
  const row = await trx
    .selectFrom('oauth_connections')
    .select('grant_id')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!row) return undefined;
  await trx.deleteFrom('oauth_connections').where('id', '=', id).execute();
  return row.grant_id;
}

/** Removes the connections whose grant is gone (revoked, or expired before `now`). */
export async function deleteOrphanConnections(trx: Kysely<Tables>, now: number): Promise<number> {
  const result = await trx
    .deleteFrom('oauth_connections as c')
    .where((eb) => eb.not(eb.exists(liveGrant(eb, now))))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
