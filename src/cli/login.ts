/**
 * Signing the CLI in to a mnemo server and out again: `mnemo login` (the device authorization
 * grant, RFC 8628), `mnemo whoami`, `mnemo logout`. The credential is kept per issuer in the
 * credentials file (credential-file.ts), where other commands find it, with the server signed in
 * to last: the one they talk to when neither `--url` nor the environment names one.
 */
import type * as OpenIdClient from 'openid-client';
import { type Args, UsageError } from './args.ts';
import {
  type Command,
  InvalidConfiguration,
  type Outcome,
  onServer,
  PreconditionFailed,
} from './command.ts';
import type { UserInfo } from './userinfo.ts';

const URL_OPTION = 'url';

export const login: Command = {
  path: ['login'],
  usage: 'mnemo login [--url URL]',
  summary:
    'sign in to the mnemo server at URL (default MNEMO_PUBLIC_URL, else the server last signed in to) in a browser, with a code; keeps the credential, and the server as the one later commands talk to',
  options: [URL_OPTION],
  prepare(args) {
    const url = urlOption(args);
    return onServer(async (signal) => signIn(await serverOf(url, login.usage), signal));
  },
};

export const whoami: Command = {
  path: ['whoami'],
  usage: 'mnemo whoami [--url URL]',
  summary:
    'the server, user and organizations the CLI is signed in as at URL (default MNEMO_PUBLIC_URL, else the server last signed in to)',
  options: [URL_OPTION],
  prepare(args) {
    const url = urlOption(args);
    return onServer(async () => currentUser(await serverOf(url, whoami.usage)));
  },
};

export const logout: Command = {
  path: ['logout'],
  usage: 'mnemo logout [--url URL]',
  summary:
    'revoke and forget the credential for URL (default MNEMO_PUBLIC_URL, else the server last signed in to), and that server if it is the one signed in to last',
  options: [URL_OPTION],
  prepare(args) {
    const url = urlOption(args);
    return onServer(async () => signOut(await serverOf(url, logout.usage)));
  },
};

/** `--url`, checked for its form: an absolute http(s) URL with nothing after the path. */
export function urlOption(args: Args): string | undefined {
  const value = args.string(URL_OPTION);
  if (value === undefined) return undefined;
  const url = URL.parse(value);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    return args.fail(`--url must be an http or https URL, not "${value}"`);
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    return args.fail(`--url must be the server's public URL, without query, fragment or user`);
  }
  return url.href.replace(/\/+$/, '');
}

export interface Server {
  /** The server's public URL, the base of its API. */
  readonly publicUrl: string;
  readonly issuer: string;
  /** The credential-file module, loaded with openid-client only once a command runs. */
  readonly credentials: typeof import('./credential-file.ts');
  readonly client: typeof OpenIdClient;
}

/**
 * The server to talk to: `--url`; else the environment's, when it names one (MNEMO_PUBLIC_URL,
 * or HOST and PORT); else the one `mnemo login` signed in to last; else the environment's
 * default. An invalid environment is exit 2, as for every command; so is plain http but to a
 * loopback address, since the URL, not the server, is what is wrong.
 */
export async function serverOf(urlOption: string | undefined, usage: string): Promise<Server> {
  const [credentials, client] = await Promise.all([
    import('./credential-file.ts'),
    import('openid-client'),
  ]);
  const server = (publicUrl: string): Server => ({
    publicUrl,
    issuer: credentials.issuerOf(publicUrl),
    credentials,
    client,
  });
  if (urlOption !== undefined) {
    const problem = credentials.insecureServerProblem(new URL(urlOption));
    if (problem) throw new UsageError(problem, [usage]);
    return server(urlOption);
  }
  const { ConfigError, loadConfig, namesPublicUrl } = await import('../config.ts');
  let configured: string;
  try {
    configured = loadConfig().publicUrl;
  } catch (error) {
    throw error instanceof ConfigError ? new InvalidConfiguration(error.message) : error;
  }
  const remembered = namesPublicUrl() ? undefined : await credentials.rememberedServer();
  if (remembered !== undefined) {
    const problem = credentials.insecureServerProblem(new URL(remembered));
    if (problem) throw new Error(`the server mnemo login remembers: ${problem}`);
    return server(remembered);
  }
  const problem = credentials.insecureServerProblem(new URL(configured));
  if (problem) throw new InvalidConfiguration(`MNEMO_PUBLIC_URL: ${problem}`);
  return server(configured);
}

async function signIn(server: Server, signal: AbortSignal): Promise<Outcome> {
  const { issuer, credentials, client } = server;
  const configuration = await credentials.discoverServer(issuer);
  // Who the CLI acts for, and everything a person may let it do.
  const { PLATFORM_SCOPE_NAMES } = await import('../credentials/index.ts');
  const scope = ['openid', 'email', 'profile', ...PLATFORM_SCOPE_NAMES].join(' ');
  const started = await client
    .initiateDeviceAuthorization(configuration, { scope })
    .catch((error: unknown) => {
      throw credentials.serverFailure(issuer, error, `${issuer} cannot start a sign-in`);
    });
  // On stderr, so that stdout holds only the outcome (one JSON object with --json).
  const complete = started.verification_uri_complete;
  process.stderr.write(
    `Open ${started.verification_uri} and enter the code ${started.user_code}${complete ? ` (or open ${complete})` : ''}. Waiting…\n`,
  );
  let tokens: Awaited<ReturnType<typeof client.pollDeviceAuthorizationGrant>>;
  try {
    tokens = await client.pollDeviceAuthorizationGrant(configuration, started, undefined, {
      // Passing a signal replaces openid-client's own deadline: keep the code's lifetime.
      signal: AbortSignal.any([signal, AbortSignal.timeout(started.expires_in * 1000)]),
    });
  } catch (error) {
    throw deviceGrantFailure(server, error);
  }
  if (!tokens.refresh_token) {
    throw new PreconditionFailed(`${issuer} gave no refresh token: the CLI cannot stay signed in`);
  }
  const user = await fetchUser(
    server,
    tokens.access_token,
    tokens.claims()?.sub ?? client.skipSubjectCheck,
  );
  const previous = await credentials.saveCredential(server.publicUrl, {
    clientId: configuration.clientMetadata().client_id,
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token,
    expiresAt: credentials.expiresAt(tokens.expiresIn()),
    userId: user.sub,
    email: user.email,
  });
  // A sign-in replaced here would otherwise stay valid on the server until it expires.
  if (previous && previous.refreshToken !== tokens.refresh_token) {
    await client.tokenRevocation(configuration, previous.refreshToken).catch(() => {});
  }
  return signedIn(server, user);
}

/** RFC 8628 §3.5's errors that end the polling, as what the person should know. */
function deviceGrantFailure(server: Server, error: unknown): Error {
  const { issuer, client } = server;
  if (error instanceof client.ResponseBodyError && error.error === 'access_denied') {
    return new PreconditionFailed('the sign-in was cancelled in the browser');
  }
  const expired =
    (error instanceof client.ResponseBodyError && error.error === 'expired_token') ||
    (error instanceof client.ClientError && error.code === 'OAUTH_TIMEOUT');
  if (expired) {
    return new PreconditionFailed(
      'the code expired before the sign-in was completed: run mnemo login again',
    );
  }
  return server.credentials.serverFailure(issuer, error, `the sign-in to ${issuer} failed`);
}

async function currentUser(server: Server): Promise<Outcome> {
  const { issuer, credentials } = server;
  const credential = await credentials.currentCredential(issuer);
  return signedIn(server, await fetchUser(server, credential.accessToken, credential.userId));
}

async function signOut(server: Server): Promise<Outcome> {
  const { publicUrl, issuer, credentials, client } = server;
  const removed = await credentials.removeCredential(publicUrl);
  if (!removed) {
    return {
      json: { server: publicUrl, issuer, removed: false, revoked: false },
      text: `Not signed in to ${publicUrl}: nothing to do.`,
    };
  }
  // Best effort: the credential is forgotten here whether or not the server can be told.
  let revoked = true;
  try {
    const configuration = await credentials.discoverServer(issuer);
    // RFC 7009 §2.1: revoking the refresh token; the access token, a JWT, just expires.
    await client.tokenRevocation(configuration, removed.refreshToken, {
      token_type_hint: 'refresh_token',
    });
  } catch (error) {
    revoked = false;
    const reason = credentials.serverFailure(issuer, error).message;
    process.stderr.write(
      `mnemo: warning: the server was not told (${reason}); the credential is removed here all the same\n`,
    );
  }
  return {
    json: { server: publicUrl, issuer, removed: true, revoked },
    text: `Signed out of ${publicUrl}.`,
  };
}

async function fetchUser(
  server: Server,
  accessToken: string,
  expectedSubject: string | typeof OpenIdClient.skipSubjectCheck,
): Promise<UserInfo> {
  const { issuer, credentials, client } = server;
  const configuration = await credentials.discoverServer(issuer);
  let answer: unknown;
  try {
    answer = await client.fetchUserInfo(configuration, accessToken, expectedSubject);
  } catch (error) {
    throw credentials.serverFailure(issuer, error, `${issuer} would not say who is signed in`);
  }
  // Loaded here, not with the command table: schema validation costs a third of a second of
  // start-up that `mnemo help` and the store commands should not pay.
  const { isUserInfo } = await import('./userinfo.ts');
  if (!isUserInfo(answer)) {
    throw new PreconditionFailed(`${issuer} answered userinfo without a user and organizations`);
  }
  return answer;
}

/** Who is signed in, and where: the server by its public URL, as `--url` takes it. */
function signedIn(server: Server, user: UserInfo): Outcome {
  const { publicUrl, issuer } = server;
  const { sub, email, name, organizations } = user;
  const who = name === undefined ? email : `${name} <${email}>`;
  const orgs =
    organizations.length === 0
      ? 'no organization'
      : organizations.map((org) => `${org.name} (${org.role})`).join(', ');
  return {
    json: {
      server: publicUrl,
      issuer,
      user: { id: sub, email, ...(name === undefined ? {} : { name }) },
      organizations: organizations.map(({ id, name, role }) => ({ id, name, role })),
    },
    text: `Signed in to ${publicUrl} as ${who}, user ${sub}.\nOrganizations: ${orgs}.`,
  };
}
