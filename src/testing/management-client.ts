import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from './build-test-app.ts';

export interface Answer {
  readonly status: number;
  readonly body: unknown;
}

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** A request of the platform API as `token`'s holder, answered as status and parsed body. */
export async function call(
  t: TestApp,
  token: string,
  method: Method,
  url: string,
  payload?: object,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res: LightMyRequestResponse = await t.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}`, ...headers },
    ...(payload === undefined ? {} : { payload }),
  });
  return { status: res.statusCode, body: res.json() };
}

/** The audit rows of an organization, oldest first, as the API shows them (without ids). */
export async function auditTrail(t: TestApp, orgId: string) {
  const rows = await t.database.db
    .selectFrom('audit_log')
    .selectAll()
    .where('org_id', '=', orgId)
    .orderBy('at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    actorId: row.actor_id,
    targetId: row.target_id,
    action: row.action,
    ...(row.details === null ? {} : { details: JSON.parse(row.details) as unknown }),
  }));
}
