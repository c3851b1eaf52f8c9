import { describe, expect, test } from 'vitest';
import { escapeHtml } from '../../platform/html.ts';
import {
  checkEmailPage,
  confirmSignUpPage,
  forgotPasswordPage,
  invitationGonePage,
  joinNeedsAccountPage,
  joinWithAccountPage,
  joinWithNewAccountPage,
  linkGonePage,
  newPasswordPage,
  resetByOperatorPage,
  resetSentPage,
  signUpClosedPage,
  signUpPage,
} from './account.pages.ts';
import { consentPage, noOrganizationPage } from './consent.page.ts';
import { deviceCodePage, deviceConfirmPage, deviceDonePage } from './device.pages.ts';
import { errorPage } from './error.page.ts';
import { homePage } from './home.page.ts';
import { signInPage } from './sign-in.page.ts';
import { signedOutPage, signOutPage } from './sign-out.pages.ts';

/** A value that breaks out of text, of a quoted attribute of either kind, and adds a handler. */
const HOSTILE = `"><script>alert(1)</script><img src=x onerror='alert(2)'>&amp;`;

// The test reads the pages with a strict little tokenizer instead of a browser: every tag must
// have only bare or double-quoted attributes, which is what the pages promise to emit.
interface Tag {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
}

const TAG = /<([a-z][a-z0-9]*)((?:\s+[a-z-]+(?:="[^"<>]*")?)*)\s*>/g;

function decodeEntities(value: string): string {
  return value.replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => {
    return { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" }[name] ?? '';
  });
}

function attributes(source: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const [, name = '', value = ''] of source.matchAll(/([a-z-]+)(?:="([^"]*)")?/g)) {
    attrs[name] = decodeEntities(value);
  }
  return attrs;
}

function tags(doc: string): Tag[] {
  return [...doc.matchAll(TAG)].map(([, name = '', attrs = '']) => ({
    name,
    attrs: attributes(attrs),
  }));
}

function forms(doc: string) {
  return [...doc.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)].map(
    ([, attrs = '', body = '']) => {
      const { method, action } = attributes(attrs);
      const inputs = tags(body).filter((tag) => tag.name === 'input');
      const buttons = [...body.matchAll(/<button\b([^>]*)>([^<]*)<\/button>/g)];
      return {
        method,
        action,
        fields: Object.fromEntries(inputs.map(({ attrs }) => [attrs.name, attrs.value ?? ''])),
        buttons: buttons.map(([, attrs = '', label = '']) => ({
          ...attributes(attrs),
          label: decodeEntities(label),
        })),
      };
    },
  );
}

function input(doc: string, name: string): Readonly<Record<string, string>> {
  const found = tags(doc).filter((tag) => tag.name === 'input' && tag.attrs.name === name);
  expect(found).toHaveLength(1);
  return found[0]?.attrs ?? {};
}

/** Tags that show or point at an error; none when there is no error. */
function errorMarks(doc: string): Tag[] {
  return tags(doc).filter(
    ({ attrs }) => attrs.role === 'alert' || 'aria-invalid' in attrs || 'aria-describedby' in attrs,
  );
}

const styleOf = (doc: string) => doc.match(/<style>([\s\S]*?)<\/style>/)?.[1];

/**
 * Each page, rendered with one value in every field; `fields` is how often that value must show
 * (a form repeated for two buttons repeats its hidden fields).
 */
const pages = {
  'sign in': {
    fields: 7,
    title: 'Sign in',
    render: (v: string) =>
      signInPage({
        action: v,
        abortAction: v,
        clientName: v,
        forgotUrl: v,
        signUpUrl: v,
        email: v,
        error: v,
      }),
  },
  consent: {
    fields: 6,
    title: 'Allow access',
    render: (v: string) =>
      consentPage({
        action: v,
        abortAction: v,
        clientName: v,
        userEmail: v,
        scopes: [{ name: v, description: v }],
      }),
  },
  'connection consent': {
    fields: 14,
    title: 'Allow access',
    render: (v: string) =>
      consentPage({
        action: v,
        abortAction: v,
        clientName: v,
        clientSource: { kind: 'metadata-document', host: v },
        userEmail: v,
        scopes: [{ name: v, description: v }],
        organizations: [
          { id: v, name: v, role: v },
          { id: v, name: v, role: v },
        ],
        chosen: v,
        error: v,
      }),
  },
  'no organization': {
    fields: 3,
    title: 'No organization',
    render: (v: string) => noOrganizationPage({ abortAction: v, clientName: v, userEmail: v }),
  },
  'device code': {
    fields: 4,
    title: 'Connect a device',
    render: (v: string) => deviceCodePage({ action: v, xsrf: v, userCode: v, error: v }),
  },
  'device confirm': {
    fields: 8,
    title: 'Check the code',
    render: (v: string) => deviceConfirmPage({ action: v, xsrf: v, userCode: v, clientName: v }),
  },
  'device done': {
    fields: 1,
    title: 'Device connected',
    render: (v: string) => deviceDonePage({ clientName: v }),
  },
  'sign out': {
    fields: 5,
    title: 'Sign out',
    render: (v: string) => signOutPage({ action: v, xsrf: v, host: v }),
  },
  'signed out': {
    fields: 1,
    title: 'Signed out',
    render: (v: string) => signedOutPage({ clientName: v }),
  },
  error: {
    fields: 2,
    title: 'Error',
    render: (v: string) => errorPage({ error: v, description: v }),
  },
  home: {
    fields: 6,
    title: 'Sign in',
    render: (v: string) => homePage({ publicUrl: v }),
  },
  'join with a new account': {
    fields: 9,
    title: 'Join /oauth/x',
    render: (v: string) =>
      joinWithNewAccountPage({ orgName: v, inviter: v, email: v, action: v, name: v, error: v }),
  },
  'join with an account': {
    fields: 9,
    title: 'Join /oauth/x',
    render: (v: string) =>
      joinWithAccountPage({ orgName: v, inviter: v, email: v, action: v, forgotUrl: v, error: v }),
  },
  'join needs an account': {
    fields: 6,
    title: 'Join /oauth/x',
    render: (v: string) => joinNeedsAccountPage({ orgName: v, inviter: v, email: v }),
  },
  'invitation gone': {
    fields: 2,
    title: 'This invitation has already been used',
    render: (v: string) => invitationGonePage('accepted', { orgName: v, studioUrl: v }),
  },
  'sign up': {
    fields: 6,
    title: 'Create an account',
    render: (v: string) =>
      signUpPage({ name: v, email: v, organization: v, action: v, signInUrl: v, error: v }),
  },
  'sign-up closed': {
    fields: 1,
    title: 'Sign-up is closed',
    render: (v: string) => signUpClosedPage({ byInvitation: true, studioUrl: v }),
  },
  'check email': {
    fields: 1,
    title: 'Check your email',
    render: (v: string) => checkEmailPage({ email: v }),
  },
  'confirm sign-up': {
    fields: 2,
    title: 'Confirm your email',
    render: (v: string) => confirmSignUpPage({ email: v, action: v }),
  },
  'forgot password': {
    fields: 4,
    title: 'Reset your password',
    render: (v: string) => forgotPasswordPage({ action: v, signInUrl: v, email: v, error: v }),
  },
  'reset by an operator': {
    fields: 1,
    title: 'Reset your password',
    render: (v: string) => resetByOperatorPage({ signInUrl: v }),
  },
  'reset sent': {
    fields: 2,
    title: 'Check your email',
    render: (v: string) => resetSentPage({ email: v, signInUrl: v }),
  },
  'new password': {
    fields: 4,
    title: 'Choose a new password',
    render: (v: string) => newPasswordPage({ action: v, email: v, error: v }),
  },
  'link gone': {
    fields: 1,
    title: 'This password reset link has expired',
    render: (v: string) => linkGonePage('password-reset', 'expired', { retryUrl: v }),
  },
};

describe('escapeHtml', () => {
  test('escapes the five characters that can end text or a quoted attribute', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
    expect(escapeHtml('plain text · ünïcode')).toBe('plain text · ünïcode');
  });
});

describe.each(Object.entries(pages))('the %s page', (_, page) => {
  const doc = page.render('/oauth/x');
  const hostile = page.render(HOSTILE);

  test('is a complete document with a title, one h1 and a main landmark', () => {
    expect(doc.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    expect(doc).toContain('<meta charset="utf-8">');
    expect(doc).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(doc).toContain(`<title>${page.title} · mnemo</title>`);
    expect(doc.match(/<h1[\s>]/g)).toHaveLength(1);
    expect(doc.match(/<main[\s>]/g)).toHaveLength(1);
    expect(doc.indexOf('<main>')).toBeLessThan(doc.indexOf('<h1'));
    expect(doc.indexOf('</h1>')).toBeLessThan(doc.indexOf('</main>'));
  });

  test('loads nothing and runs nothing, so a strict CSP holds', () => {
    expect(doc).not.toMatch(/\son[a-z]+=/i);
    for (const rendered of [doc, hostile]) {
      expect(rendered).not.toMatch(/<script|<link|<img|<iframe|@import|url\(/i);
      for (const tag of tags(rendered)) {
        expect(Object.keys(tag.attrs).filter((name) => name.startsWith('on'))).toEqual([]);
      }
    }
  });

  test('has the same stylesheet as every other page', () => {
    expect(styleOf(doc)).toBe(styleOf(signedOutPage({})));
  });

  test('labels every visible input, and every button submits', () => {
    const all = tags(doc);
    const labelled = new Set(all.filter((t) => t.name === 'label').map((t) => t.attrs.for));
    const ids = all.map((t) => t.attrs.id).filter((id) => id !== undefined);
    expect(new Set(ids).size).toBe(ids.length);
    for (const tag of all.filter((t) => t.name === 'input' && t.attrs.type !== 'hidden')) {
      expect(tag.attrs.id).toBeDefined();
      expect(labelled.has(tag.attrs.id)).toBe(true);
    }
    for (const tag of all.filter((t) => t.name === 'button')) {
      expect(tag.attrs.type).toBe('submit');
    }
    for (const form of forms(doc)) expect(form.method).toBe('post');
  });

  test('renders a hostile value in every field as inert text', () => {
    // Every tag parses, so nothing broke out of an attribute or added markup.
    expect(tags(hostile)).toHaveLength(hostile.match(/<[a-z]/g)?.length ?? 0);
    expect(tags(hostile).map((tag) => tag.name)).toEqual(tags(doc).map((tag) => tag.name));
    expect(hostile).not.toContain(HOSTILE);
    expect(hostile.split(escapeHtml(HOSTILE))).toHaveLength(page.fields + 1);
    for (const form of forms(hostile)) {
      expect(form.action).toBe(HOSTILE);
      for (const value of Object.values(form.fields)) expect(['', 'yes', HOSTILE]).toContain(value);
    }
  });
});

describe('sign in', () => {
  const action = '/oauth/interaction/abc/login';
  const abortAction = '/oauth/interaction/abc/abort';

  test('links to the password reset always, to sign-up only where it is open', () => {
    const links = (doc: string) =>
      [...doc.matchAll(/<a href="([^"]*)">([^<]*)<\/a>/g)].map(([, href, label]) => ({
        href,
        label,
      }));
    const base = { action, abortAction, clientName: 'Acme', forgotUrl: '/oauth/password-reset' };
    expect(links(signInPage(base))).toEqual([
      { href: '/oauth/password-reset', label: 'Forgot password?' },
    ]);
    expect(links(signInPage({ ...base, signUpUrl: '/oauth/sign-up?interaction=abc' }))).toEqual([
      { href: '/oauth/password-reset', label: 'Forgot password?' },
      { href: '/oauth/sign-up?interaction=abc', label: 'Create an account' },
    ]);
  });

  test('posts email and password, and cancels with a form of its own', () => {
    const doc = signInPage({
      action,
      abortAction,
      clientName: 'Acme CLI',
      forgotUrl: '/oauth/password-reset',
    });
    expect(doc).toContain('Acme CLI');
    expect(forms(doc)).toEqual([
      {
        method: 'post',
        action,
        fields: { email: '', password: '' },
        buttons: [{ type: 'submit', label: 'Sign in' }],
      },
      {
        method: 'post',
        action: abortAction,
        fields: {},
        buttons: [{ type: 'submit', class: 'secondary', label: 'Cancel' }],
      },
    ]);
    expect(input(doc, 'email')).toMatchObject({ type: 'email', autocomplete: 'username' });
    expect(input(doc, 'password')).toMatchObject({
      type: 'password',
      autocomplete: 'current-password',
    });
    expect(errorMarks(doc)).toEqual([]);
  });

  test('shows an error as an alert the fields point at, refills the email but not the password', () => {
    for (const error of [
      'Wrong email or password',
      'Too many failed sign-ins; try again in 42 s',
      'This account is suspended',
    ]) {
      const doc = signInPage({
        action,
        abortAction,
        clientName: 'Acme',
        forgotUrl: '/oauth/password-reset',
        email: 'a@b.c',
        error,
      });
      const alert = tags(doc).find((tag) => tag.attrs.role === 'alert');
      expect(alert?.attrs.id).toBeDefined();
      expect(doc).toContain(`role="alert">${escapeHtml(error)}</p>`);
      for (const name of ['email', 'password']) {
        expect(input(doc, name)).toMatchObject({
          'aria-invalid': 'true',
          'aria-describedby': alert?.attrs.id,
        });
      }
      expect(input(doc, 'email').value).toBe('a@b.c');
      expect(input(doc, 'password').value).toBeUndefined();
    }
  });
});

describe('consent', () => {
  test('names the client, lists each scope, and offers Allow and Deny as separate posts', () => {
    const doc = consentPage({
      action: '/oauth/interaction/abc/confirm',
      abortAction: '/oauth/interaction/abc/abort',
      clientName: 'Acme CLI',
      userEmail: 'ada@example.com',
      scopes: [
        { name: 'memory:read', description: 'Read your memories' },
        { name: 'memory:write', description: 'Add and change memories' },
      ],
    });
    expect(doc).toMatch(/<h1>Acme CLI wants to access your mnemo account<\/h1>/);
    expect(doc).toContain('ada@example.com');
    expect(doc).toContain('<code>memory:read</code>: Read your memories');
    expect(doc).toContain('<code>memory:write</code>: Add and change memories');
    expect(forms(doc)).toEqual([
      {
        method: 'post',
        action: '/oauth/interaction/abc/confirm',
        fields: {},
        buttons: [{ type: 'submit', label: 'Allow' }],
      },
      {
        method: 'post',
        action: '/oauth/interaction/abc/abort',
        fields: {},
        buttons: [{ type: 'submit', class: 'secondary', label: 'Deny' }],
      },
    ]);
  });
});

describe('consent to a connection (the MCP server)', () => {
  const base = {
    action: '/oauth/interaction/abc/consent',
    abortAction: '/oauth/interaction/abc/abort',
    clientName: 'Claude',
    userEmail: 'ada@example.com',
    scopes: [{ name: 'memory:read', description: 'Read your memories' }],
  };
  const acme = { id: '11111111-1111-4111-8111-111111111111', name: 'Acme', role: 'owner' };
  const globex = { id: '22222222-2222-4222-8222-222222222222', name: 'Globex', role: 'member' };

  test('several organizations: a required radio group, labelled, in the form Allow submits', () => {
    const doc = consentPage({ ...base, organizations: [acme, globex] });
    expect(doc).toContain('<fieldset><legend>Which organization does it act in?</legend>');
    for (const [i, org] of [acme, globex].entries()) {
      expect(doc).toContain(
        `<input type="radio" id="organization-${i}" name="organization" value="${org.id}" required><label for="organization-${i}">${org.name} <span class="muted">(${org.role})</span></label>`,
      );
    }
    const [allow, deny] = forms(doc);
    expect(allow).toMatchObject({
      action: base.action,
      buttons: [{ type: 'submit', label: 'Allow' }],
    });
    expect(Object.keys(allow?.fields ?? {})).toEqual(['organization']);
    expect(deny).toMatchObject({ action: base.abortAction, fields: {} });
    expect(errorMarks(doc)).toEqual([]);
  });

  test('shown again with an error: the alert, the radios pointing at it, the choice kept', () => {
    const doc = consentPage({
      ...base,
      organizations: [acme, globex],
      chosen: globex.id,
      error: 'Choose the organization it acts in.',
    });
    expect(doc).toContain('role="alert">Choose the organization it acts in.</p>');
    expect(doc).toContain(`value="${globex.id}" required checked aria-invalid="true"`);
    expect(doc).toContain(`value="${acme.id}" required aria-invalid="true"`);
  });

  test('one organization: stated, sent with Allow, no question', () => {
    const doc = consentPage({ ...base, organizations: [acme] });
    expect(doc).toContain('<p>It will act in the organization <strong>Acme</strong>.</p>');
    expect(doc).not.toContain('type="radio"');
    expect(forms(doc)[0]).toEqual({
      method: 'post',
      action: base.action,
      fields: { organization: acme.id },
      buttons: [{ type: 'submit', label: 'Allow' }],
    });
  });

  test('says where the client’s name comes from when the operator did not register it', () => {
    expect(
      consentPage({ ...base, clientSource: { kind: 'metadata-document', host: 'claude.ai' } }),
    ).toContain('<p>Its details are published by <strong>claude.ai</strong>.</p>');
    expect(consentPage({ ...base, clientSource: { kind: 'registered' } })).toContain(
      '<p class="muted">It registered itself: mnemo has not checked its name.</p>',
    );
    expect(consentPage(base)).not.toMatch(/published by|registered itself/);
  });
});

describe('device flow', () => {
  const action = '/oauth/device';

  test('the code page posts xsrf and a labelled user_code fit for typing a code', () => {
    const doc = deviceCodePage({ action, xsrf: 'token' });
    expect(forms(doc)).toEqual([
      {
        method: 'post',
        action,
        fields: { xsrf: 'token', user_code: '' },
        buttons: [{ type: 'submit', label: 'Continue' }],
      },
    ]);
    expect(input(doc, 'user_code')).toMatchObject({
      type: 'text',
      autocomplete: 'off',
      autocapitalize: 'characters',
      spellcheck: 'false',
    });
    expect(errorMarks(doc)).toEqual([]);
  });

  test('the code page shows an error as an alert and keeps the code typed', () => {
    const doc = deviceCodePage({
      action,
      xsrf: 'token',
      userCode: 'WDJB-MJHT',
      error: 'The code is not valid',
    });
    const alert = tags(doc).find((tag) => tag.attrs.role === 'alert');
    expect(doc).toContain('role="alert">The code is not valid</p>');
    expect(input(doc, 'user_code')).toMatchObject({
      value: 'WDJB-MJHT',
      'aria-invalid': 'true',
      'aria-describedby': alert?.attrs.id,
    });
  });

  test('the confirm page shows the code; only Continue sends confirm=yes, Cancel sends abort', () => {
    const doc = deviceConfirmPage({
      action,
      xsrf: 'token',
      userCode: 'WDJB-MJHT',
      clientName: 'TV',
    });
    expect(doc).toContain('<p class="user-code">WDJB-MJHT</p>');
    expect(doc).toContain('TV');
    expect(forms(doc)).toEqual([
      {
        method: 'post',
        action,
        fields: { xsrf: 'token', user_code: 'WDJB-MJHT', confirm: 'yes' },
        buttons: [{ type: 'submit', label: 'Continue' }],
      },
      {
        method: 'post',
        action,
        fields: { xsrf: 'token', user_code: 'WDJB-MJHT' },
        buttons: [
          { type: 'submit', name: 'abort', value: 'yes', class: 'secondary', label: 'Cancel' },
        ],
      },
    ]);
  });

  test('the done page names the client and has no form', () => {
    const doc = deviceDonePage({ clientName: 'Living-room TV' });
    expect(doc).toContain('You are signed in on Living-room TV. You can close this page.');
    expect(forms(doc)).toEqual([]);
  });
});

describe('sign out', () => {
  test('only the Sign out button sends logout=yes; both forms carry xsrf', () => {
    const doc = signOutPage({
      action: '/oauth/session/end/confirm',
      xsrf: 'token',
      host: 'mnemo.example',
    });
    expect(doc).toContain('mnemo.example');
    expect(forms(doc)).toEqual([
      {
        method: 'post',
        action: '/oauth/session/end/confirm',
        fields: { xsrf: 'token' },
        buttons: [{ type: 'submit', name: 'logout', value: 'yes', label: 'Sign out' }],
      },
      {
        method: 'post',
        action: '/oauth/session/end/confirm',
        fields: { xsrf: 'token' },
        buttons: [{ type: 'submit', class: 'secondary', label: 'Stay signed in' }],
      },
    ]);
  });

  test('the signed-out page names the client when there is one', () => {
    expect(signedOutPage({ clientName: 'Acme CLI' })).toContain('Acme CLI');
    expect(signedOutPage({})).toContain('Your sign-out was successful.');
  });
});

describe('error', () => {
  test('shows the OAuth error code and description, and nothing else', () => {
    const doc = errorPage({ error: 'invalid_request', description: 'missing required parameter' });
    expect(doc).toContain('<h1>Something went wrong</h1>');
    expect(doc).toContain('<code>invalid_request</code>');
    expect(doc).toContain('missing required parameter');
    expect(errorPage({ error: 'server_error' })).toContain('<code>server_error</code>');
  });
});

describe('home', () => {
  test('signs in through the studio and links the studio, the CLI login, the API and discovery', () => {
    const doc = homePage({ publicUrl: 'https://mnemo.example.test' });
    const links = tags(doc)
      .filter((tag) => tag.name === 'a')
      .map((tag) => tag.attrs.href);
    expect(links).toEqual([
      'https://mnemo.example.test/studio/',
      'https://mnemo.example.test/studio/',
      'https://mnemo.example.test/oauth/device',
      'https://mnemo.example.test/openapi.json',
      'https://mnemo.example.test/oauth/.well-known/openid-configuration',
    ]);
    expect(doc).toContain(
      '<a class="button" href="https://mnemo.example.test/studio/">Sign in to the studio</a>',
    );
    expect(doc).toContain('<code>npx mnemo login</code>');
    expect(forms(doc)).toEqual([]);
  });
});
