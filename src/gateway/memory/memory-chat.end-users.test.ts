/**
 * `x-mnemo-user`: a chat call made with an API key remembers for an end user (named by the
 * app's id or mnemo's) or another member, with the rights and audit of the memory API's `user`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  chatWithMemory,
  type MemoryChatWorld,
  startMemoryChatWorld,
} from '../../testing/memory-chat-world.ts';

const quoted = (text: string) => JSON.stringify(text).slice(1, -1);

const chat = chatWithMemory;

async function platform(world: MemoryChatWorld, method: string, path: string, body?: object) {
  const response = await fetch(`${world.gateway.server.url}${path}`, {
    method,
    headers: {
      ...world.gateway.owner.headers,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('remembering for an end user', () => {
  let world: MemoryChatWorld;
  let endUserId: string;
  beforeAll(async () => {
    world = await startMemoryChatWorld('openai');
    await world.remember('Prefers tea.', 'preference');
    const orgId = world.gateway.orgId;
    const registered = await platform(world, 'PUT', `/api/v1/orgs/${orgId}/end-users/cust%2F42`, {
      name: 'Jo',
    });
    endUserId = (registered.body.endUser as { id: string }).id;
    await platform(world, 'POST', '/api/v1/memory', {
      content: 'Is allergic to peanuts.',
      category: 'constraint',
      user: endUserId,
    });
  });
  afterAll(async () => {
    await world?.close();
  });

  test('by the app’s id or mnemo’s: their memories are recalled, not the key owner’s', async () => {
    for (const user of ['cust/42', endUserId, endUserId.toUpperCase()]) {
      const answer = await chat(
        world,
        { 'x-mnemo-memory': 'read', 'x-mnemo-user': user },
        'What should I cook?',
      );
      expect(answer.status).toBe(200);
      expect(answer.echoed).toContain(quoted('- [constraint] Is allergic to peanuts.'));
      expect(answer.echoed).not.toContain('Prefers tea');
    }
    const own = await chat(world, { 'x-mnemo-memory': 'read' }, 'What should I cook?');
    expect(own.echoed).toContain(quoted('- [preference] Prefers tea.'));
    expect(own.echoed).not.toContain('peanuts');
  });

  test('what a read-write call learns goes to the end user’s store, audited as acting for them', async () => {
    world.text('openai', 'Noted.');
    world.json('openai', {
      proposals: [
        {
          action: 'add',
          id: '',
          content: 'Has a cat named Miso.',
          category: 'relationship',
        },
      ],
    });
    const answer = await chat(
      world,
      { 'x-mnemo-memory': 'read-write', 'x-mnemo-user': 'cust/42' },
      'My cat Miso says hi.',
    );
    expect(answer.status).toBe(200);
    await world.learned();
    const theirs = await world.memories(`?user=${endUserId}`);
    expect(theirs.memories.map((m) => m.content).sort()).toEqual([
      'Has a cat named Miso.',
      'Is allergic to peanuts.',
    ]);
    expect((await world.memories()).memories.map((m) => m.content)).toEqual(['Prefers tea.']);
    const audit = await platform(world, 'GET', '/api/v1/audit?limit=20');
    const acts = (audit.body.entries as { actorId: string; targetId: string; action: string }[])
      .filter((e) => e.targetId === endUserId)
      .map((e) => ({ actorId: e.actorId, action: e.action }));
    expect(acts).toContainEqual({ actorId: world.gateway.owner.id, action: 'add' });
    expect(acts).toContainEqual({ actorId: world.gateway.owner.id, action: 'search' });
  });

  test('no such end user or member, or a project beside: 400 in OpenAI’s shape, no provider called', async () => {
    const sent = world.upstream('openai').length;
    expect(
      await chat(world, { 'x-mnemo-memory': 'read', 'x-mnemo-user': 'nobody-here' }, 'Hi'),
    ).toMatchObject({
      status: 400,
      error: {
        message: 'user is not a member of this organization',
        type: 'invalid_request_error',
      },
    });
    expect(
      await chat(
        world,
        {
          'x-mnemo-memory': 'read',
          'x-mnemo-user': 'cust/42',
          'x-mnemo-project': crypto.randomUUID(),
        },
        'Hi',
      ),
    ).toMatchObject({
      status: 400,
      error: {
        message: 'The x-mnemo-user header cannot be combined with x-mnemo-project.',
        type: 'invalid_request_error',
        param: 'x-mnemo-user',
        code: 'user_with_project',
      },
    });
    expect(world.upstream('openai')).toHaveLength(sent);
    // Without memory in the call, the header asks for nothing and is not read.
    expect(
      (await chat(world, { 'x-mnemo-memory': 'off', 'x-mnemo-user': 'nobody' }, 'Hi')).status,
    ).toBe(200);
  });

  test('an erased end user is no one to remember for', async () => {
    await platform(world, 'PUT', `/api/v1/orgs/${world.gateway.orgId}/end-users/temp-1`);
    await platform(world, 'DELETE', `/api/v1/orgs/${world.gateway.orgId}/end-users/temp-1`);
    expect(
      (await chat(world, { 'x-mnemo-memory': 'read', 'x-mnemo-user': 'temp-1' }, 'Hi')).status,
    ).toBe(400);
  });
});

describe('who may name another user', () => {
  test('a member’s key where only owners and admins act for others: 403; review mode learns for no one else', async () => {
    const world = await startMemoryChatWorld('openai', { MNEMO_MEMORY_EXTRACTION: 'review' });
    try {
      const { server, orgId } = world.gateway;
      const endUser = await platform(world, 'PUT', `/api/v1/orgs/${orgId}/end-users/c-9`);
      const id = (endUser.body.endUser as { id: string }).id;
      const refused = await chat(
        world,
        { 'x-mnemo-memory': 'read-write', 'x-mnemo-user': 'c-9' },
        'Hi',
      );
      expect(refused).toMatchObject({
        status: 400,
        error: {
          message:
            'memories learned for another user cannot wait for review (MNEMO_MEMORY_EXTRACTION=review): call with x-mnemo-memory: read, or without x-mnemo-user',
        },
      });
      expect(
        (await chat(world, { 'x-mnemo-memory': 'read', 'x-mnemo-user': id }, 'Hi')).status,
      ).toBe(200);

      await server.t.database.db
        .updateTable('organizations')
        .set({ user_override: 'admins' })
        .where('id', '=', orgId)
        .execute();
      await server.t.fixtures.member(orgId, world.gateway.owner.id, 'member');
      expect(
        await chat(world, { 'x-mnemo-memory': 'read', 'x-mnemo-user': 'c-9' }, 'Hi'),
      ).toMatchObject({
        status: 403,
        error: {
          message: 'acting for another member is restricted to organization owners and admins',
        },
      });
    } finally {
      await world.close();
    }
  });
});
