import type { Kysely } from 'kysely';

// A connection: a person's consent for an MCP client, and the organization it acts in (MCP has
// no X-Organization-Id: the person chose one on the consent page). One per grant of the
// authorization server; the MCP tokens of the grant carry its id and organization, and /mcp
// refuses them once the row is gone (revoked).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oauth_connections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('grant_id', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    // The name the person was shown when they allowed it: a client's own metadata may change.
    .addColumn('client_name', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('oauth_connections_user')
    .on('oauth_connections')
    .columns(['user_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oauth_connections').execute();
}
