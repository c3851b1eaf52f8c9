/**
 * `mnemo admin client create` through the real command: what it prints (a confidential client's
 * secret once, and nowhere else), what it leaves in the store (only the secret's hash), and each
 * rule that refuses a command line (exit 2, before the store is touched).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDatabase, type Database } from '../db/database.ts';
import { migrateToLatest } from '../db/migrator.ts';
import { hashClientSecret, verifyClientSecret } from '../oauth/client-secrets.ts';
import { insertUser } from '../tenancy/users.repository.ts';
import { createTestStore, type TestStore } from '../testing/test-store.ts';
import { createMnemo, type MnemoRun, onlyJson } from './mnemo-process.ts';

const USAGE =
  'mnemo admin client create --name NAME --type public|confidential [--redirect-uri URI]... [--grant authorization_code|refresh_token|client_credentials|device_code]... [--user ID]';
const CLIENT_ID = /^mnemo_client_[\w-]{22}$/;
const SECRET = /^mnemo_cs_[\w-]{43}$/;

let store: TestStore;
let mnemo: ReturnType<typeof createMnemo>;
let database: Database;
/** A user to bind service clients to, written straight to the store. */
let serviceUser: string;

beforeAll(async () => {
  store = await createTestStore();
  mnemo = createMnemo({ MNEMO_DATABASE_URL: store.url });
  database = createDatabase(store.url);
  await migrateToLatest(database.db);
  serviceUser = randomUUID();
  await insertUser(database.db, { id: serviceUser, email: `${serviceUser}@example.test` });
});
afterAll(async () => {
  await database.close();
  await store.dispose();
});

const create = (...args: string[]) => mnemo('admin', 'client', 'create', ...args);

const clientRow = (id: string) =>
  database.db.selectFrom('oauth_clients').selectAll().where('id', '=', id).executeTakeFirst();

const clientCount = async () =>
  Number(
    (
      await database.db
        .selectFrom('oauth_clients')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

/** A successful --json run: exactly one line, `{"id"}` or `{"id","secret"}`. */
function created(run: MnemoRun): { id: string; secret?: string } {
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const body = onlyJson(run) as { id: string; secret?: string };
  expect(body.id).toMatch(CLIENT_ID);
  return body;
}

describe('admin client create', () => {
  test('a public client: defaults to authorization code + refresh, no secret', async () => {
    const run = await create(
      ...['--name', '  Web app  ', '--type', 'public'],
      ...['--redirect-uri', 'https://app.example/cb', '--json'],
    );
    const { id } = created(run);
    expect(run.stdout).toBe(`${JSON.stringify({ id })}\n`);
    expect(await clientRow(id)).toEqual({
      id,
      name: 'Web app',
      type: 'public',
      secret_hash: null,
      redirect_uris: '["https://app.example/cb"]',
      grant_types: '["authorization_code","refresh_token"]',
      service_user_id: null,
      org_id: null,
      rate_limit_per_minute: null,
      created_at: expect.any(Number),
    });
  });

  test('a service client: --user defaults to client credentials; the secret is shown once, only its hash stored', async () => {
    const run = await create(
      ...['--name', 'Nightly sync', '--type', 'confidential', '--user', serviceUser.toUpperCase()],
      '--json',
    );
    const body = created(run);
    expect(Object.keys(body)).toEqual(['id', 'secret']);
    const secret = body.secret ?? '';
    expect(secret).toMatch(SECRET);
    expect(run.stdout).toBe(`${JSON.stringify({ id: body.id, secret })}\n`);

    const row = await clientRow(body.id);
    expect(row).toEqual({
      id: body.id,
      name: 'Nightly sync',
      type: 'confidential',
      secret_hash: hashClientSecret(secret),
      redirect_uris: '[]',
      grant_types: '["client_credentials"]',
      service_user_id: serviceUser,
      org_id: null,
      rate_limit_per_minute: null,
      created_at: expect.any(Number),
    });
    expect(JSON.stringify(row)).not.toContain(secret.slice('mnemo_cs_'.length));
    expect(verifyClientSecret(secret, row?.secret_hash ?? '')).toBe(true);
  });

  test('text output: labelled lines, the secret once and a warning that it is not shown again', async () => {
    const [confidential, plain] = await Promise.all([
      create(
        ...['--name', 'Backend', '--type', 'confidential', '--grant', 'authorization_code'],
        ...['--redirect-uri', 'https://backend.example/oauth/cb'],
      ),
      create('--name', 'Tool', '--type', 'public', '--grant', 'device_code'),
    ]);
    expect(confidential.stderr).toBe('');
    expect(confidential.code).toBe(0);
    const match =
      /^created confidential client "Backend"\nclient id: {5}(\S+)\nclient secret: (\S+)\nthe secret is not shown again: only its hash is stored\n$/.exec(
        confidential.stdout,
      );
    const [, id = '', secret = ''] = match ?? [];
    expect(id).toMatch(CLIENT_ID);
    expect(secret).toMatch(SECRET);
    expect(confidential.stdout.split(secret)).toHaveLength(2);
    expect(await clientRow(id)).toMatchObject({
      type: 'confidential',
      secret_hash: hashClientSecret(secret),
      grant_types: '["authorization_code"]',
    });

    expect(plain.stderr).toBe('');
    const publicId = /^created public client "Tool"\nclient id: (\S+)\n$/.exec(plain.stdout)?.[1];
    expect(publicId).toMatch(CLIENT_ID);
    expect(await clientRow(publicId ?? '')).toMatchObject({
      type: 'public',
      secret_hash: null,
      redirect_uris: '[]',
      grant_types: '["device_code"]',
    });
  });

  test('repeated options: duplicates collapse, redirect URIs are kept exactly as given', async () => {
    const uris = [
      'http://127.0.0.1:8123/callback',
      'HTTP://LocalHost/cb?b=2&a=1',
      'http://[::1]/cb',
      'com.example.app:/oauth2redirect',
      'https://app.example/cb',
    ];
    const run = await create(
      ...['--name', 'Desktop', '--type', 'public'],
      ...['--grant', 'device_code', '--grant', 'refresh_token', '--grant', 'authorization_code'],
      ...['--grant', 'refresh_token', '--grant', 'device_code'],
      ...uris.flatMap((uri) => ['--redirect-uri', uri]),
      ...['--redirect-uri', 'http://127.0.0.1:8123/callback', '--json'],
    );
    const { id } = created(run);
    const row = await clientRow(id);
    expect(JSON.parse(row?.grant_types ?? '')).toEqual([
      'device_code',
      'refresh_token',
      'authorization_code',
    ]);
    expect(JSON.parse(row?.redirect_uris ?? '')).toEqual(uris);
  });

  test('--user must name an existing user: exit 1, nothing stored', async () => {
    const unknown = randomUUID();
    const before = await clientCount();
    const args = ['--name', 'Ghost', '--type', 'confidential', '--user', unknown];
    const [json, text] = await Promise.all([create(...args, '--json'), create(...args)]);
    const message = `unknown user ${unknown}`;
    expect(json).toEqual({
      code: 1,
      stdout: `${JSON.stringify({ error: message })}\n`,
      stderr: `mnemo: ${message}\n`,
    });
    expect(text).toEqual({ code: 1, stdout: '', stderr: `mnemo: ${message}\n` });
    expect(await clientCount()).toBe(before);
  });

  test('each rule refuses its command line: exit 2, the message and usage, nothing stored', async () => {
    const user = randomUUID();
    const pub = ['--name', 'X', '--type', 'public'];
    const conf = ['--name', 'X', '--type', 'confidential'];
    const code = ['--grant', 'authorization_code'];
    const schemes =
      'must be https, http on a loopback host (127.0.0.1, [::1], localhost) or a private-use scheme with a dot (com.example.app:/callback)';
    const cases: Array<[args: string[], message: string]> = [
      [['--type', 'public'], '--name is required'],
      [['--name', 'X'], '--type is required'],
      [
        ['--name', 'X', '--type', 'secret'],
        '--type must be one of public, confidential, not "secret"',
      ],
      [
        [...pub, '--grant', 'implicit'],
        '--grant must be one of authorization_code, refresh_token, client_credentials, device_code, not "implicit"',
      ],
      [[...conf, '--user', 'svc'], '--user must be a UUID, not "svc"'],
      [[...pub, '--grant', ''], '--grant must not be empty'],
      [[...pub, '--redirect-uri'], '--redirect-uri needs a value'],
      [[...pub, '--grant', 'device_code', 'extra'], 'unexpected argument "extra"'],
      // client_credentials: confidential clients only, bound to a service user.
      [
        [...pub, '--user', user],
        '--grant client_credentials (the default with --user) needs --type confidential',
      ],
      [
        [...pub, '--grant', 'client_credentials', '--user', user],
        '--grant client_credentials needs --type confidential',
      ],
      [
        [...conf, '--grant', 'client_credentials'],
        '--grant client_credentials needs --user: the service user the client acts as',
      ],
      // --user needs client_credentials.
      [
        [...conf, '--user', user, ...code, '--redirect-uri', 'https://a.example/cb'],
        '--user binds a client_credentials client to a service user: add --grant client_credentials',
      ],
      // authorization_code needs a redirect URI, and only it takes one.
      [
        pub,
        '--grant authorization_code (a default without --grant) needs at least one --redirect-uri',
      ],
      [
        [...pub, ...code, '--grant', 'refresh_token'],
        '--grant authorization_code needs at least one --redirect-uri',
      ],
      [
        [...pub, '--grant', 'device_code', '--redirect-uri', 'https://a.example/cb'],
        '--redirect-uri is only for clients with --grant authorization_code',
      ],
      [
        [...conf, '--user', user, '--redirect-uri', 'https://a.example/cb'],
        '--redirect-uri is only for clients with --grant authorization_code',
      ],
      // refresh_token needs a grant that issues refresh tokens.
      [
        [...pub, '--grant', 'refresh_token'],
        '--grant refresh_token needs --grant authorization_code or device_code',
      ],
      [
        [...conf, '--user', user, '--grant', 'client_credentials', '--grant', 'refresh_token'],
        '--grant refresh_token needs --grant authorization_code or device_code',
      ],
      // Redirect URIs.
      [
        [...pub, '--redirect-uri', '/callback'],
        '--redirect-uri must be an absolute URI, not "/callback"',
      ],
      [
        [...pub, '--redirect-uri', 'https://a.example/cb#done'],
        '--redirect-uri must not contain a fragment (#…), not "https://a.example/cb#done"',
      ],
      [
        [...pub, '--redirect-uri', 'http://a.example/cb'],
        `--redirect-uri ${schemes}, not "http://a.example/cb"`,
      ],
      [
        [...pub, '--redirect-uri', 'http://192.168.1.2/cb'],
        `--redirect-uri ${schemes}, not "http://192.168.1.2/cb"`,
      ],
      [[...pub, '--redirect-uri', 'myapp:/cb'], `--redirect-uri ${schemes}, not "myapp:/cb"`],
      [
        [...pub, '--redirect-uri', 'https://a.example/cb', '--redirect-uri', 'javascript:alert(1)'],
        `--redirect-uri ${schemes}, not "javascript:alert(1)"`,
      ],
      [
        [...pub, '--redirect-uri', 'https://localhost/cb', '--redirect-uri', 'http://127.0.0.1/cb'],
        '--redirect-uri "https://localhost/cb" cannot be combined with http loopback or private-use redirect URIs: those make the client a native app, whose https redirect URIs must not be on a loopback host',
      ],
    ];
    const before = await clientCount();
    const runs = await Promise.all(cases.map(([args]) => create('--json', ...args)));
    for (const [index, [args, message]] of cases.entries()) {
      expect(runs[index], args.join(' ')).toEqual({
        code: 2,
        // With --json, the refusal is also one JSON object, as every answer of --json is.
        stdout: `${JSON.stringify({ error: message })}\n`,
        stderr: `mnemo: ${message}\nusage: ${USAGE}\n`,
      });
    }
    expect(await clientCount()).toBe(before);
  });
});
