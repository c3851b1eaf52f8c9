import { createHash } from 'node:crypto';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import { STUDIO_CLIENT_ID } from '../credentials/index.ts';
import { deviceCodePage, deviceConfirmPage, deviceDonePage } from './pages/device.pages.ts';
import { errorPage } from './pages/error.page.ts';
import {
  SUBMIT_ON_LOAD_SCRIPT,
  signedOutPage,
  signingOutPage,
  signOutPage,
} from './pages/sign-out.pages.ts';

type Features = NonNullable<Configuration['features']>;

/**
 * The pages the provider renders itself, in mnemo's look: the device flow's (RFC 8628), signing
 * out, and its errors. The sign-in and consent pages are mnemo's own routes
 * (interactions.routes.ts).
 */

/** The device flow: a code typed on a second screen, then a confirmation. */
export const deviceFlow: NonNullable<Features['deviceFlow']> = {
  enabled: true,
  charset: 'base-20',
  mask: '****-****',
  userCodeInputSource: async (ctx, _form, _out, err) => {
    ctx.body = deviceCodePage({
      action: ctx.oidc.urlFor('code_verification'),
      xsrf: ctx.oidc.session?.state?.secret as string,
      ...(err ? { error: deviceCodeError(err) } : {}),
    });
  },
  userCodeConfirmSource: async (ctx, _form, client, _deviceInfo, userCode) => {
    ctx.body = deviceConfirmPage({
      action: ctx.oidc.urlFor('code_verification'),
      xsrf: ctx.oidc.session?.state?.secret as string,
      userCode,
      clientName: client.clientName ?? client.clientId,
    });
  },
  successSource: async (ctx) => {
    const client = ctx.oidc.client;
    ctx.body = deviceDonePage({ clientName: client?.clientName ?? client?.clientId ?? '' });
  },
};

/** Signing out (RP-initiated logout): a question, unless the studio asked with its ID token. */
export function rpInitiatedLogout(publicUrl: string): NonNullable<Features['rpInitiatedLogout']> {
  return {
    enabled: true,
    logoutSource: async (ctx) => {
      const action = ctx.oidc.urlFor('end_session_confirm');
      const xsrf = ctx.oidc.session?.state?.secret as string;
      // The provider validated the hint (signature, audience) before this runs: it proves
      // the studio asked, so its one-click sign-out needs no second question.
      if (ctx.oidc.client?.clientId === STUDIO_CLIENT_ID && ctx.oidc.params?.id_token_hint) {
        allowInlineScript(ctx, SUBMIT_ON_LOAD_SCRIPT);
        ctx.body = signingOutPage({ action, xsrf });
        return;
      }
      ctx.body = signOutPage({ action, xsrf, host: new URL(publicUrl).host });
    },
    postLogoutSuccessSource: async (ctx) => {
      const name = ctx.oidc.client?.clientName ?? ctx.oidc.client?.clientId;
      ctx.body = signedOutPage(name === undefined ? {} : { clientName: name });
    },
  };
}

/** An error the provider shows a person (not one it answers a client in JSON). */
export const renderError: NonNullable<Configuration['renderError']> = async (ctx, out) => {
  ctx.type = 'html';
  ctx.body = errorPage({
    error: String(out.error),
    ...(out.error_description === undefined ? {} : { description: String(out.error_description) }),
  });
};

/** Adds one inline script to the page's CSP by its hash, as the provider does for form_post. */
function allowInlineScript(ctx: KoaContextWithOIDC, script: string) {
  const hash = `'sha256-${createHash('sha256').update(script).digest('base64')}'`;
  const csp = ctx.response.get('content-security-policy');
  ctx.set('content-security-policy', csp.replace(/script-src([^;]*)/, `script-src$1 ${hash}`));
}

function deviceCodeError(err: Error): string {
  if (err.name === 'NoCodeError') return 'Enter the code your device shows.';
  if (err.name === 'NotFoundError') return 'That code is not known. Check it and try again.';
  if (err.name === 'ExpiredError') return 'That code has expired. Start again on your device.';
  if (err.name === 'AlreadyUsedError') return 'That code has already been used.';
  if (err.name === 'AbortedError') return 'The sign-in was cancelled.';
  return 'Something went wrong. Try again.';
}
