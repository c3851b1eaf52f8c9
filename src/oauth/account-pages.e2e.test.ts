/**
 * The pages outside a sign-in, over real HTTP on both engines: joining by invitation, sign-up
 * and password reset, each ending signed in by a single-use ticket that the next sign-in takes;
 * a new password ends the account's sessions and refresh tokens; the forms refuse other sites,
 * count their uses, and `MNEMO_SIGNUP` decides who makes an account. Emails go through a real
 * SMTP server on loopback.
 */
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Browser, type Page } from '../testing/browser.ts';
import { type OAuthServer, startOAuthServer } from '../testing/oauth-server.ts';
import { type SmtpSink, startSmtpSink } from '../testing/smtp-sink.ts';

let smtp: SmtpSink;
beforeAll(async () => {
  smtp = await startSmtpSink();
});
afterAll(() => smtp?.close());

const PASSWORD = 'a fine long passphrase';
const STUDIO = 'mnemo-studio';

/** A server with its organization and owner; SMTP unless `email: false`. */
async function start(env: Record<string, string> = {}, options: { email?: boolean } = {}) {
  const server = await startOAuthServer({
    ...(options.email === false ? {} : { MNEMO_SMTP_URL: smtp.url }),
    ...env,
  });
  const orgId = await server.t.fixtures.org({ name: 'Acme' });
  const owner = await server.person({ orgId, role: 'owner', name: 'Ada Lovelace' });
  const ownerToken = await server.t.fixtures.token(owner.id);
  const invite = async (email: string, role = 'member') => {
    const res = await fetch(`${server.url}/api/v1/orgs/${orgId}/invitations`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ownerToken}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ email, role }),
    });
    expect(res.status).toBe(201);
    return (await res.json()) as { url: string; emailed: boolean; invitation: { id: string } };
  };
  return { server, orgId, owner, ownerToken, invite };
}

/**
 * The studio's sign-in in `browser`, as the studio starts it: the callback's tokens when the
 * browser is signed in at once (a ticket, a session), or the sign-in page it was shown.
 */
async function studioSignIn(server: OAuthServer, browser: Browser) {
  const config = await server.discover(STUDIO);
  const verifier = client.randomPKCECodeVerifier();
  const redirectUri = `${server.url}/studio/callback`;
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid email memory:read',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const page = await browser.open(url.href, { stopAt: (u) => u.startsWith(redirectUri) });
  if (!page.url.startsWith(redirectUri)) return { page, tokens: undefined, config };
  const tokens = await client.authorizationCodeGrant(config, new URL(page.url), {
    pkceCodeVerifier: verifier,
  });
  return { page, tokens, config };
}

const heading = (page: Page) => page.html.match(/<h1>([^<]*)<\/h1>/)?.[1];
const alert = (page: Page) => page.html.match(/role="alert">([^<]*)</)?.[1];
const linkIn = (text: string) => text.match(/https?:\/\/\S+/)?.[0] ?? '';

describe('joining by invitation', () => {
  let world: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    world = await start();
  });
  afterAll(() => world.server.close());

  test('a new person makes an account and lands signed in, in the organization; the link works once', async () => {
    const { url, emailed } = await world.invite('lin@acme.test', 'admin');
    expect(emailed).toBe(true);
    const mail = await smtp.next('lin@acme.test');
    expect(mail.subject).toBe('Ada Lovelace invited you to Acme on mnemo');
    expect(linkIn(mail.text)).toBe(url);

    const browser = new Browser();
    const page = await browser.open(url);
    expect(page.status).toBe(200);
    expect(heading(page)).toBe('Join Acme');
    const short = await browser.submit(page, {
      name: 'Lin',
      password: 'short',
      confirmation: 'short',
    });
    expect(short.status).toBe(400);
    expect(alert(short)).toBe('Use at least 12 characters: a few words make a good password.');
    expect(short.html).toContain('value="Lin"');
    const differ = await browser.submit(page, {
      name: 'Lin',
      password: PASSWORD,
      confirmation: `${PASSWORD}!`,
    });
    expect(alert(differ)).toBe('The two passwords differ: type the same one twice.');

    const joined = await browser.submit(
      page,
      { name: 'Lin', password: PASSWORD, confirmation: PASSWORD },
      { stopAt: (u) => u.includes('/studio/') },
    );
    expect(joined.status).toBe(303);
    expect(joined.url).toBe(`${world.server.url}/studio/memories?org=${world.orgId}`);
    expect(browser.setCookies.at(-1)).toMatch(
      /^mnemo_sign_in=sit_[\w-]{43}; Max-Age=600; Path=\/oauth; HttpOnly; SameSite=Lax$/,
    );

    // The studio's sign-in takes the ticket: no form, straight to the callback.
    const { tokens } = await studioSignIn(world.server, browser);
    const me = await fetch(`${world.server.url}/oauth/me`, {
      headers: { authorization: `Bearer ${tokens?.access_token}` },
    });
    expect(await me.json()).toMatchObject({
      email: 'lin@acme.test',
      name: 'Lin',
      organizations: [{ id: world.orgId, name: 'Acme', role: 'admin' }],
    });

    const again = await new Browser().open(url);
    expect(again.status).toBe(410);
    expect(heading(again)).toBe('This invitation has already been used');
    expect(again.html).not.toContain('<form');
    const replay = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ name: 'Eve', password: PASSWORD, confirmation: PASSWORD }),
    });
    expect(replay.status).toBe(410);
  });

  test('a ticket signs in once, and is cleared from the browser that used it', async () => {
    const { url } = await world.invite('once@acme.test');
    const browser = new Browser();
    const page = await browser.open(url);
    await browser.submit(
      page,
      { name: 'Once', password: PASSWORD, confirmation: PASSWORD },
      { stopAt: (u) => u.includes('/studio/') },
    );
    expect(browser.cookieNames()).toContain('mnemo_sign_in');
    expect((await studioSignIn(world.server, browser)).tokens).toBeDefined();
    expect(browser.cookieNames()).not.toContain('mnemo_sign_in');
    const tickets = await world.server.t.database.db
      .selectFrom('account_links as l')
      .innerJoin('users as u', 'u.id', 'l.user_id')
      .select(['l.used_at'])
      .where('u.email', '=', 'once@acme.test')
      .where('l.purpose', '=', 'sign-in')
      .execute();
    expect(tickets).toEqual([{ used_at: expect.any(Number) }]);
    // Another browser, without the ticket, is shown the form.
    const { page: form, tokens } = await studioSignIn(world.server, new Browser());
    expect(tokens).toBeUndefined();
    expect(heading(form)).toBe('Sign in');
  });

  test('an existing account signs in to join; a wrong password is said', async () => {
    const elsewhere = await world.server.t.fixtures.org({ name: 'Elsewhere' });
    const grace = await world.server.person({
      orgId: elsewhere,
      name: 'Grace',
      password: PASSWORD,
    });
    const { url } = await world.invite(grace.email.toUpperCase());
    const browser = new Browser();
    const page = await browser.open(url);
    expect(page.html).toContain(`value="${grace.email}"`);
    expect(page.html).not.toContain('name="confirmation"');
    const wrong = await browser.submit(page, { password: 'not the password at all' });
    expect(wrong.status).toBe(401);
    expect(alert(wrong)).toBe('Wrong password.');
    const joined = await browser.submit(
      page,
      { password: PASSWORD },
      { stopAt: (u) => u.includes('/studio/') },
    );
    expect(joined.url).toBe(`${world.server.url}/studio/memories?org=${world.orgId}`);
    const roles = await world.server.t.database.db
      .selectFrom('memberships')
      .select(['org_id', 'role'])
      .where('user_id', '=', grace.id)
      .orderBy('org_id')
      .execute();
    expect(roles.map((r) => r.org_id).sort()).toEqual([elsewhere, world.orgId].sort());
  });

  test('revoked, expired and unknown links open pages that say so, with no form', async () => {
    const revoked = await world.invite('gone@acme.test');
    await fetch(
      `${world.server.url}/api/v1/orgs/${world.orgId}/invitations/${revoked.invitation.id}`,
      {
        method: 'DELETE',
        headers: { authorization: `Bearer ${world.ownerToken}` },
      },
    );
    const expired = await world.invite('late@acme.test');
    await world.server.t.database.db
      .updateTable('invitations')
      .set({ expires_at: Date.now() - 1 })
      .where('id', '=', expired.invitation.id)
      .execute();
    for (const [url, status, says] of [
      [revoked.url, 410, 'This invitation was withdrawn'],
      [expired.url, 410, 'This invitation has expired'],
      [
        `${world.server.url}/oauth/invitations/inv_nothing`,
        404,
        'This invitation link is not valid',
      ],
    ] as const) {
      const page = await new Browser().open(url);
      expect({
        status: page.status,
        heading: heading(page),
        form: page.html.includes('<form'),
      }).toEqual({
        status,
        heading: says,
        form: false,
      });
    }
  });

  test('a form posted from another site is refused, and does nothing', async () => {
    const { url } = await world.invite('csrf@acme.test');
    for (const headers of [
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
    ]) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams({ name: 'Eve', password: PASSWORD, confirmation: PASSWORD }),
        redirect: 'manual',
      });
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('This form can only be sent from its own page.');
    }
    expect((await new Browser().open(url)).status).toBe(200);
  });
});

describe('sign-up', () => {
  test('invite (the default): no link on the sign-in page, and the page says it is closed', async () => {
    const world = await start({}, { email: false });
    try {
      const { page } = await studioSignIn(world.server, new Browser());
      expect(page.html).toContain('Forgot password?');
      expect(page.html).not.toContain('Create an account');
      const closed = await new Browser().open(`${world.server.url}/oauth/sign-up`);
      expect({ status: closed.status, heading: heading(closed) }).toEqual({
        status: 403,
        heading: 'Sign-up is closed',
      });
    } finally {
      await world.server.close();
    }
  });

  test('closed: an invitation to an address without an account asks for an operator, and makes none', async () => {
    const world = await start({ MNEMO_SIGNUP: 'closed' }, { email: false });
    try {
      const { url } = await world.invite('nobody@acme.test');
      const page = await new Browser().open(url);
      expect(page.html).toContain('accounts on this server are made by its operators');
      expect(page.html).not.toContain('<form');
      await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ name: 'N', password: PASSWORD, confirmation: PASSWORD }),
      });
      const users = await world.server.t.database.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', 'nobody@acme.test')
        .execute();
      expect(users).toEqual([]);
    } finally {
      await world.server.close();
    }
  });

  test('open, without email: from the sign-in page, an account with its organization, signed in', async () => {
    const world = await start({ MNEMO_SIGNUP: 'open' }, { email: false });
    try {
      const browser = new Browser();
      const { page } = await studioSignIn(world.server, browser);
      const signUpUrl =
        page.html
          .match(/href="([^"]*sign-up[^"]*)">Create an account/)?.[1]
          ?.replaceAll('&amp;', '&') ?? '';
      expect(signUpUrl).toMatch(/\/oauth\/sign-up\?interaction=/);
      const form = await browser.open(signUpUrl);
      expect(heading(form)).toBe('Create an account');
      const done = await browser.submit(
        form,
        {
          name: 'Bo Diddley',
          email: 'Bo@Example.TEST',
          password: PASSWORD,
          confirmation: PASSWORD,
          organization: '',
        },
        { stopAt: (u) => u.startsWith(`${world.server.url}/studio/callback`) },
      );
      // Back to the sign-in it came from, signed in: the studio's callback with a code.
      expect(new URL(done.url).searchParams.get('code')).toEqual(expect.any(String));
      const user = await world.server.t.database.db
        .selectFrom('users')
        .selectAll()
        .where('email', '=', 'bo@example.test')
        .executeTakeFirstOrThrow();
      const orgs = await world.server.t.database.db
        .selectFrom('memberships as m')
        .innerJoin('organizations as o', 'o.id', 'm.org_id')
        .select(['o.name', 'm.role'])
        .where('m.user_id', '=', user.id)
        .execute();
      expect(orgs).toEqual([{ name: 'Bo Diddley’s organization', role: 'owner' }]);
      const taken = await browser.submit(form, {
        name: 'Bo',
        email: 'bo@example.test',
        password: PASSWORD,
        confirmation: PASSWORD,
      });
      expect(taken.status).toBe(400);
      expect(alert(taken)).toBe('An account with this email exists: sign in to it.');
    } finally {
      await world.server.close();
    }
  });

  test('open, with email: nothing exists until the emailed link is confirmed; an address with an account is told so by email', async () => {
    const world = await start({ MNEMO_SIGNUP: 'open' });
    try {
      const browser = new Browser();
      const form = await browser.open(`${world.server.url}/oauth/sign-up`);
      const sent = await browser.submit(form, {
        name: 'Cy',
        email: 'cy@example.test',
        password: PASSWORD,
        confirmation: PASSWORD,
        organization: 'Cy & Co',
      });
      expect(heading(sent)).toBe('Check your email');
      const db = world.server.t.database.db;
      expect(
        await db.selectFrom('users').select('id').where('email', '=', 'cy@example.test').execute(),
      ).toEqual([]);
      const mail = await smtp.next('cy@example.test');
      expect(mail.subject).toBe('Confirm your email to create your mnemo account');
      const confirm = await browser.open(linkIn(mail.text));
      expect(heading(confirm)).toBe('Confirm your email');
      const made = await browser.submit(confirm, {}, { stopAt: (u) => u.includes('/studio/') });
      const user = await db
        .selectFrom('users')
        .select('id')
        .where('email', '=', 'cy@example.test')
        .executeTakeFirstOrThrow();
      const org = await db
        .selectFrom('memberships as m')
        .innerJoin('organizations as o', 'o.id', 'm.org_id')
        .select(['o.id', 'o.name'])
        .where('m.user_id', '=', user.id)
        .executeTakeFirstOrThrow();
      expect(org.name).toBe('Cy & Co');
      expect(made.url).toBe(`${world.server.url}/studio/memories?org=${org.id}`);
      expect((await studioSignIn(world.server, browser)).tokens).toBeDefined();
      expect((await new Browser().open(linkIn(mail.text))).status).toBe(410);

      // The same form for an address that has an account: the same page, and an email that says so.
      const again = await new Browser().submit(
        await new Browser().open(`${world.server.url}/oauth/sign-up`),
        {
          name: 'Cy',
          email: 'cy@example.test',
          password: PASSWORD,
          confirmation: PASSWORD,
        },
      );
      expect(heading(again)).toBe('Check your email');
      expect((await smtp.next('cy@example.test')).subject).toBe('You already have a mnemo account');
    } finally {
      await world.server.close();
    }
  });
});

describe('password reset', () => {
  test('the emailed link sets a new password, signs in, and ends every session and refresh token', async () => {
    const world = await start();
    try {
      const person = await world.server.person({ orgId: world.orgId, password: PASSWORD });
      // Signed in elsewhere before: a session and a refresh token.
      const config = await world.server.discover(STUDIO);
      const old = await (async () => {
        const browser = new Browser();
        const verifier = client.randomPKCECodeVerifier();
        const url = client.buildAuthorizationUrl(config, {
          redirect_uri: `${world.server.url}/studio/callback`,
          scope: 'openid memory:read',
          code_challenge: await client.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
        });
        const form = await browser.open(url.href);
        const done = await browser.submit(
          form,
          { email: person.email, password: PASSWORD },
          { stopAt: (u) => u.includes('/studio/callback') },
        );
        const tokens = await client.authorizationCodeGrant(config, new URL(done.url), {
          pkceCodeVerifier: verifier,
        });
        return { browser, tokens };
      })();
      expect(old.tokens.refresh_token).toEqual(expect.any(String));

      const browser = new Browser();
      const forgot = await browser.open(`${world.server.url}/oauth/password-reset`);
      expect(heading(forgot)).toBe('Reset your password');
      const sent = await browser.submit(forgot, { email: person.email.toUpperCase() });
      expect(heading(sent)).toBe('Check your email');
      const mail = await smtp.next(person.email);
      expect(mail.subject).toBe('Choose a new password for mnemo');
      const link = linkIn(mail.text);
      const form = await browser.open(link);
      expect(heading(form)).toBe('Choose a new password');
      const common = await browser.submit(form, {
        password: 'password1234',
        confirmation: 'password1234',
      });
      expect(alert(common)).toBe('That password is one of the most common: choose another.');
      const NEW = 'an entirely new passphrase';
      const done = await browser.submit(
        form,
        { password: NEW, confirmation: NEW },
        { stopAt: (u) => u.includes('/studio/') },
      );
      expect(done.url).toBe(`${world.server.url}/studio/`);
      expect((await studioSignIn(world.server, browser)).tokens).toBeDefined();

      // Everything signed in with the old password is signed out.
      await expect(
        client.refreshTokenGrant(config, old.tokens.refresh_token as string),
      ).rejects.toMatchObject({ error: 'invalid_grant' });
      const stale = await studioSignIn(world.server, old.browser);
      expect(heading(stale.page)).toBe('Sign in');
      const withOld = await old.browser.submit(stale.page, {
        email: person.email,
        password: PASSWORD,
      });
      expect(withOld.status).toBe(401);
      expect((await new Browser().open(link)).status).toBe(410);
    } finally {
      await world.server.close();
    }
  });

  test('an unknown address is answered the same, and gets no email; without email, an operator resets', async () => {
    const world = await start();
    try {
      const browser = new Browser();
      const forgot = await browser.open(`${world.server.url}/oauth/password-reset`);
      const answer = await browser.submit(forgot, { email: 'nobody@nowhere.test' });
      expect(heading(answer)).toBe('Check your email');
      expect(answer.html).toContain('If an account uses <strong>nobody@nowhere.test</strong>');
      await world.server.t.app.passwordResets.idle();
      expect(smtp.pending('nobody@nowhere.test')).toEqual([]);
    } finally {
      await world.server.close();
    }
    const offline = await start({}, { email: false });
    try {
      const page = await new Browser().open(`${offline.server.url}/oauth/password-reset`);
      expect(page.html).toContain('ask one of them');
      expect(page.html).not.toContain('<form');
    } finally {
      await offline.server.close();
    }
  });

  test('asking too often for one address is refused with the wait', async () => {
    const world = await start();
    try {
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 6; i++) {
        last = await fetch(`${world.server.url}/oauth/password-reset`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ email: 'flood@example.test' }),
        });
        statuses.push(last.status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
      expect(Number(last?.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await last?.text()).toMatch(/Too many tries\. Try again in \d+ s\./);
    } finally {
      await world.server.close();
    }
  });
});
