/**
 * The connections of MCP clients, on the suite's engine: one per grant (a second consent keeps
 * it and takes the new organization), listed while their grant is in force, found for a token
 * only by its own person and client, and purged with the grants that are gone.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import {
  deleteConnection,
  findConnectionOfGrant,
  findLiveConnection,
  listConnections,
  saveConnection,
} from './connections.repository.ts';
import { createOidcAdapter, purgeExpiredOAuthRecords } from './oidc-adapter.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const NOW = Date.UTC(2026, 10, 24, 12);

/** A grant record as oidc-provider saves one, expiring `ttlSeconds` after NOW. */
async function grant(ttlSeconds: number): Promise<string> {
  const id = `grant-${randomUUID()}`;
  const Adapter = createOidcAdapter(t.database, { now: () => NOW });
  await new Adapter('Grant').upsert(id, { jti: id, kind: 'Grant' }, ttlSeconds);
  return id;
}

test('a grant has one connection; consenting again keeps it and takes the new organization', async () => {
  const acme = await t.fixtures.org({ name: 'Acme' });
  const globex = await t.fixtures.org({ name: 'Globex' });
  const ada = await t.fixtures.user(acme);
  const grantId = await grant(3600);
  const connection = { grantId, userId: ada.id, clientId: 'c1', clientName: 'One' };
  const id = await t.database.write((trx) =>
    saveConnection(trx, { ...connection, orgId: acme }, NOW),
  );
  expect(await findConnectionOfGrant(t.database.db, grantId)).toEqual({ id, orgId: acme });
  const again = await t.database.write((trx) =>
    saveConnection(trx, { ...connection, clientName: 'One v2', orgId: globex }, NOW + 1000),
  );
  expect(again).toBe(id);
  expect(await listConnections(t.database.db, ada.id, NOW)).toEqual([
    {
      id,
      clientId: 'c1',
      clientName: 'One v2',
      organization: { id: globex, name: 'Globex' },
      createdAt: NOW,
    },
  ]);
});

test('a token finds its connection only with its own person and client', async () => {
  const acme = await t.fixtures.org({ name: 'Acme' });
  const ada = await t.fixtures.user(acme);
  const bob = await t.fixtures.user(acme);
  const grantId = await grant(3600);
  const id = await t.database.write((trx) =>
    saveConnection(trx, {
      grantId,
      userId: ada.id,
      clientId: 'c1',
      clientName: 'One',
      orgId: acme,
    }),
  );
  const { db } = t.database;
  expect(await findLiveConnection(db, { id, userId: ada.id, clientId: 'c1' })).toEqual({
    orgId: acme,
  });
  expect(await findLiveConnection(db, { id, userId: bob.id, clientId: 'c1' })).toBeUndefined();
  expect(await findLiveConnection(db, { id, userId: ada.id, clientId: 'c2' })).toBeUndefined();
  // Only its person removes it.
  expect(await t.database.write((trx) => deleteConnection(trx, bob.id, id))).toBeUndefined();
  expect(await t.database.write((trx) => deleteConnection(trx, ada.id, id))).toBe(grantId);
  expect(await findLiveConnection(db, { id, userId: ada.id, clientId: 'c1' })).toBeUndefined();
});

test('listed newest first while the grant lasts; purged once it is gone', async () => {
  const acme = await t.fixtures.org({ name: 'Acme' });
  const ada = await t.fixtures.user(acme);
  const save = (grantId: string, clientId: string, at: number) =>
    t.database.write((trx) =>
      saveConnection(
        trx,
        { grantId, userId: ada.id, clientId, clientName: clientId, orgId: acme },
        at,
      ),
    );
  const lasting = await save(await grant(3600), 'lasting', NOW);
  const newer = await save(await grant(3600), 'newer', NOW + 1);
  const expiring = await save(await grant(60), 'expiring', NOW + 2);
  const orphan = await save(`grant-${randomUUID()}`, 'orphan', NOW + 3);

  const ids = async (at: number) =>
    (await listConnections(t.database.db, ada.id, at)).map((c) => c.id);
  expect(await ids(NOW)).toEqual([expiring, newer, lasting]);
  expect(await ids(NOW + 61_000)).toEqual([newer, lasting]);

  await purgeExpiredOAuthRecords(t.database, NOW + 61_000);
  const left = await t.database.db
    .selectFrom('oauth_connections')
    .select('id')
    .where('user_id', '=', ada.id)
    .execute();
  expect(left.map((row) => row.id).sort()).toEqual([lasting, newer].sort());
  expect(left.map((row) => row.id)).not.toContain(orphan);
});
