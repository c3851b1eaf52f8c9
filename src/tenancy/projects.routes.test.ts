/**
 * Projects and their collaborators through HTTP: who sees and manages which project, the last
 * project owner, deletion only of an empty project, and the audit row of each change.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { auditTrail, call } from '../testing/management-client.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

async function org() {
  const orgId = await t.fixtures.org({ name: 'Acme' });
  const owner = await t.fixtures.user(orgId, 'owner');
  const lead = await t.fixtures.user(orgId, 'member');
  const viewer = await t.fixtures.user(orgId, 'member');
  const projectId = await t.fixtures.project(orgId, { [lead.id]: 'owner', [viewer.id]: 'viewer' });
  return { orgId, owner, lead, viewer, projectId, url: `/api/v1/projects/${projectId}` };
}

const grants = async (projectId: string) =>
  Object.fromEntries(
    (
      await t.database.db
        .selectFrom('project_access')
        .select(['user_id', 'access'])
        .where('project_id', '=', projectId)
        .execute()
    ).map((g) => [g.user_id, g.access]),
  );

describe('creating and listing', () => {
  test('the creator becomes the owner; members list the projects they can see, sorted by name', async () => {
    const o = await org();
    const created = await call(t, o.owner.token, 'POST', `/api/v1/orgs/${o.orgId}/projects`, {
      name: 'Alpha',
    });
    expect(created.status).toBe(201);
    const { id } = (created.body as { project: { id: string } }).project;
    expect(await grants(id)).toEqual({ [o.owner.id]: 'owner' });
    expect(await auditTrail(t, o.orgId)).toEqual([
      { actorId: o.owner.id, targetId: id, action: 'project.create', details: { name: 'Alpha' } },
    ]);
    const names = async (token: string) =>
      (
        (await call(t, token, 'GET', `/api/v1/orgs/${o.orgId}/projects`)).body as {
          projects: { name: string }[];
        }
      ).projects.map((p) => p.name);
    expect(await names(o.owner.token)).toEqual(['Alpha', 'Project']);
    expect(await names(o.viewer.token)).toEqual(['Project']);
  });

  test("each project says the caller's own access; owners and admins see the ones they hold none of without it", async () => {
    const o = await org();
    const editorOf = await t.fixtures.project(o.orgId, { [o.viewer.id]: 'editor' });
    const listed = async (token: string) =>
      (
        (await call(t, token, 'GET', `/api/v1/orgs/${o.orgId}/projects`)).body as {
          projects: { id: string; access?: string }[];
        }
      ).projects
        .map((p) => ({ id: p.id, access: p.access }))
        .sort((a, b) => a.id.localeCompare(b.id));
    const byId = (rows: { id: string; access: string | undefined }[]) =>
      rows.sort((a, b) => a.id.localeCompare(b.id));
    expect(await listed(o.viewer.token)).toEqual(
      byId([
        { id: o.projectId, access: 'viewer' },
        { id: editorOf, access: 'editor' },
      ]),
    );
    expect(await listed(o.lead.token)).toEqual([{ id: o.projectId, access: 'owner' }]);
    expect(await listed(o.owner.token)).toEqual(
      byId([
        { id: o.projectId, access: undefined },
        { id: editorOf, access: undefined },
      ]),
    );
    const renamed = await call(t, o.lead.token, 'PATCH', o.url, { name: 'Renamed' });
    expect((renamed.body as { project: { access?: string } }).project.access).toBe('owner');
  });

  test('a name is required and not blank', async () => {
    const o = await org();
    const url = `/api/v1/orgs/${o.orgId}/projects`;
    expect(await call(t, o.owner.token, 'POST', url, {})).toEqual({
      status: 400,
      body: { error: 'name is required' },
    });
    expect(await call(t, o.owner.token, 'POST', url, { name: ' ' })).toEqual({
      status: 400,
      body: { error: 'name must not be blank' },
    });
    expect(await call(t, o.owner.token, 'PATCH', o.url, { name: 'x'.repeat(201) })).toEqual({
      status: 400,
      body: { error: 'name must be at most 200 characters' },
    });
  });
});

describe('project owners', () => {
  test('a project owner who is a plain member renames it and manages its collaborators', async () => {
    const o = await org();
    expect(await call(t, o.lead.token, 'PATCH', o.url, { name: 'Renamed' })).toMatchObject({
      status: 200,
      body: { project: { name: 'Renamed' } },
    });
    expect(
      await call(t, o.lead.token, 'PUT', `${o.url}/collaborators/${o.viewer.id}`, {
        access: 'editor',
      }),
    ).toMatchObject({
      status: 200,
      body: { collaborator: { userId: o.viewer.id, access: 'editor' } },
    });
    expect(await auditTrail(t, o.orgId)).toEqual([
      {
        actorId: o.lead.id,
        targetId: o.projectId,
        action: 'project.update',
        details: { name: { from: 'Project', to: 'Renamed' } },
      },
      {
        actorId: o.lead.id,
        targetId: o.viewer.id,
        action: 'collaborator.set',
        details: { projectId: o.projectId, access: 'editor', previous: 'viewer' },
      },
    ]);
  });

  test('a viewer sees the collaborators but manages nothing: 403', async () => {
    const o = await org();
    expect(await call(t, o.viewer.token, 'GET', `${o.url}/collaborators`)).toMatchObject({
      status: 200,
    });
    const error = {
      error:
        "only the project's owners, and owners and admins of the organization, can manage the project's collaborators",
    };
    expect(
      await call(t, o.viewer.token, 'PUT', `${o.url}/collaborators/${o.viewer.id}`, {
        access: 'owner',
      }),
    ).toEqual({ status: 403, body: error });
    expect(await call(t, o.viewer.token, 'DELETE', `${o.url}/collaborators/${o.lead.id}`)).toEqual({
      status: 403,
      body: error,
    });
    expect(await call(t, o.viewer.token, 'DELETE', o.url)).toEqual({
      status: 403,
      body: {
        error:
          "only the project's owners, and owners and admins of the organization, can delete the project",
      },
    });
    expect(await auditTrail(t, o.orgId)).toEqual([]);
  });

  test('the last project owner can be neither demoted nor removed: 409, nothing changes', async () => {
    const o = await org();
    const before = await grants(o.projectId);
    expect(
      await call(t, o.owner.token, 'PUT', `${o.url}/collaborators/${o.lead.id}`, {
        access: 'editor',
      }),
    ).toEqual({ status: 409, body: { error: 'the last owner of the project cannot be demoted' } });
    expect(await call(t, o.lead.token, 'DELETE', `${o.url}/collaborators/${o.lead.id}`)).toEqual({
      status: 409,
      body: { error: 'the last owner of the project cannot be removed' },
    });
    expect(await grants(o.projectId)).toEqual(before);
    expect(await auditTrail(t, o.orgId)).toEqual([]);
  });
});

describe('collaborators', () => {
  test('only members of the organization: 400; unknown or malformed user ids: 404 on DELETE', async () => {
    const o = await org();
    const outsider = await t.fixtures.user(await t.fixtures.org(), 'owner');
    for (const id of [outsider.id, crypto.randomUUID()]) {
      expect(
        await call(t, o.owner.token, 'PUT', `${o.url}/collaborators/${id}`, { access: 'viewer' }),
      ).toEqual({
        status: 400,
        body: { error: 'the user is not a member of the organization of this project' },
      });
    }
    expect(
      await call(t, o.owner.token, 'PUT', `${o.url}/collaborators/${o.viewer.id}`, {
        access: 'admin',
      }),
    ).toEqual({
      status: 400,
      body: {
        error: expect.stringMatching(/^access (is invalid|must be one of: viewer, editor, owner)$/),
      },
    });
    for (const id of [outsider.id, 'nope']) {
      expect(await call(t, o.owner.token, 'DELETE', `${o.url}/collaborators/${id}`)).toEqual({
        status: 404,
        body: { error: 'collaborator not found' },
      });
    }
    expect(await auditTrail(t, o.orgId)).toEqual([]);
  });

  test('removal is audited with the access taken', async () => {
    const o = await org();
    expect(await call(t, o.owner.token, 'DELETE', `${o.url}/collaborators/${o.viewer.id}`)).toEqual(
      { status: 200, body: { ok: true } },
    );
    expect(await grants(o.projectId)).toEqual({ [o.lead.id]: 'owner' });
    expect(await auditTrail(t, o.orgId)).toEqual([
      {
        actorId: o.owner.id,
        targetId: o.viewer.id,
        action: 'collaborator.remove',
        details: { projectId: o.projectId, access: 'viewer' },
      },
    ]);
  });

  test('a project of another organization, or none: 404 or 403 before anything is read', async () => {
    const o = await org();
    expect(
      await call(t, o.owner.token, 'GET', `/api/v1/projects/${crypto.randomUUID()}/collaborators`),
    ).toEqual({
      status: 404,
      body: { error: 'not found' },
    });
    expect(await call(t, o.owner.token, 'GET', '/api/v1/projects/nope/collaborators')).toEqual({
      status: 404,
      body: { error: 'not found' },
    });
    const elsewhere = await t.fixtures.project(await t.fixtures.org());
    expect(
      await call(t, o.owner.token, 'GET', `/api/v1/projects/${elsewhere}/collaborators`),
    ).toEqual({
      status: 403,
      body: { error: 'not a member of this organization' },
    });
  });
});

describe('deleting a project', () => {
  const memoryHeaders = (orgId: string) => ({ 'x-organization-id': orgId });

  test('refused with 409 while its pool has memories; allowed once they are deleted', async () => {
    const o = await org();
    const added = await call(
      t,
      o.lead.token,
      'POST',
      '/api/v1/memory',
      { content: 'pool fact', project: o.projectId },
      memoryHeaders(o.orgId),
    );
    expect(added.status).toBe(201);
    expect(await call(t, o.owner.token, 'DELETE', o.url)).toEqual({
      status: 409,
      body: { error: "the project's pool still has memories: delete them first" },
    });
    expect(await grants(o.projectId)).toEqual({ [o.lead.id]: 'owner', [o.viewer.id]: 'viewer' });
    const memoryId = (added.body as { memory: { id: string } }).memory.id;
    expect(
      (
        await call(
          t,
          o.lead.token,
          'DELETE',
          `/api/v1/memory/${memoryId}`,
          undefined,
          memoryHeaders(o.orgId),
        )
      ).status,
    ).toBe(200);
    expect(await call(t, o.lead.token, 'DELETE', o.url)).toEqual({
      status: 200,
      body: { ok: true },
    });
    const left = await t.database.db
      .selectFrom('projects')
      .select('id')
      .where('id', '=', o.projectId)
      .execute();
    expect(left).toEqual([]);
    expect(await grants(o.projectId)).toEqual({});
    const scopes = await t.database.db
      .selectFrom('scopes')
      .select('id')
      .where('owner_id', '=', o.projectId)
      .execute();
    expect(scopes).toEqual([]);
    expect(await auditTrail(t, o.orgId)).toEqual([
      {
        actorId: o.lead.id,
        targetId: o.projectId,
        action: 'project.delete',
        details: { name: 'Project' },
      },
    ]);
    expect(await call(t, o.owner.token, 'DELETE', o.url)).toEqual({
      status: 404,
      body: { error: 'not found' },
    });
  });

  test('refused with 409 while a working API key is bound to it; a revoked one is unbound', async () => {
    const o = await org();
    const key = (id: string, revokedAt: number | null) => ({
      id,
      org_id: o.orgId,
      user_id: o.owner.id,
      project_id: o.projectId,
      name: 'k',
      prefix: id.slice(0, 8),
      secret_hash: id,
      created_at: Date.now(),
      last_used_at: null,
      expires_at: null,
      revoked_at: revokedAt,
    });
    const live = crypto.randomUUID();
    const revoked = crypto.randomUUID();
    await t.database.db
      .insertInto('api_keys')
      .values([key(live, null), key(revoked, 1)])
      .execute();
    expect(await call(t, o.owner.token, 'DELETE', o.url)).toEqual({
      status: 409,
      body: { error: 'API keys are bound to the project: revoke them first' },
    });
    await t.database.db
      .updateTable('api_keys')
      .set({ revoked_at: Date.now() })
      .where('id', '=', live)
      .execute();
    expect(await call(t, o.owner.token, 'DELETE', o.url)).toEqual({
      status: 200,
      body: { ok: true },
    });
    const keys = await t.database.db
      .selectFrom('api_keys')
      .select(['project_id', 'revoked_at'])
      .where('org_id', '=', o.orgId)
      .execute();
    expect(keys).toHaveLength(2);
    for (const k of keys) {
      expect(k.project_id).toBeNull();
      expect(k.revoked_at).not.toBeNull();
    }
  });
});
