/**
 * The credentials `mnemo login` keeps, one per authorization server (issuer), in
 * `$XDG_CONFIG_HOME/mnemo/credentials.json`, with the server it signed in to last; and the client
 * side of that server the CLI needs to keep them fresh: discovery, the refresh token grant, and
 * errors told as sentences.
 *
 * ```json
 * { "server": "https://mnemo.example.com",
 *   "credentials": { "https://mnemo.example.com/oauth": { "clientId": "mnemo-cli",
 *   "accessToken": "eyJ…", "refreshToken": "…", "expiresAt": "2026-01-01T00:00:00.000Z",
 *   "userId": "…", "email": "ada@example.com" } } }
 * ```
 *
 * `server` is absent from the files of earlier versions, whose credentials are read as they are.
 *
 * The file holds live refresh tokens: its directory is 0700, the file 0600, and it is replaced
 * whole (a temporary file renamed over it), so a reader or a crash never meets half a file.
 * Changes are made under a lock file beside it: refresh tokens are rotated on every use and a
 * reused one revokes the sign-in, so two processes must never refresh the same one.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as client from 'openid-client';
import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';
import { cliCredentialsPath } from '../config.ts';
import { CLI_CLIENT_ID } from '../credentials/index.ts';

const StoredCredential = Type.Object({
  clientId: Type.String({ minLength: 1 }),
  accessToken: Type.String({ minLength: 1 }),
  refreshToken: Type.String({ minLength: 1 }),
  /** ISO 8601: when the access token expires. */
  expiresAt: Type.String({ minLength: 1 }),
  userId: Type.String({ minLength: 1 }),
  email: Type.String(),
});
export type StoredCredential = Static<typeof StoredCredential>;

const CredentialFile = Type.Object({
  /**
   * The public URL of the server `mnemo login` signed in to last: the one commands talk to when
   * neither `--url` nor the environment names one. Forgotten when its credential is signed out.
   */
  server: Type.Optional(Type.String({ pattern: '^https?://' })),
  credentials: Type.Record(Type.String(), StoredCredential),
});
type CredentialFile = Static<typeof CredentialFile>;

/** An access token is refreshed when it expires within this, so it outlives the request. */
const REFRESH_MARGIN_MS = 60_000;

/** There is no usable credential for the issuer: sign in again. */
export class NotSignedIn extends Error {
  override readonly name = 'NotSignedIn';
  readonly issuer: string;

  constructor(issuer: string, reason?: string) {
    super(`not signed in to ${issuer}${reason ? ` (${reason})` : ''}: run mnemo login`);
    this.issuer = issuer;
  }
}

/** The authorization server of a mnemo server: it lives under `/oauth` of its public URL. */
export const issuerOf = (publicUrl: string) => `${publicUrl}/oauth`;

/** RFC 8252 §8.3 allows plain http to a loopback address only; so does the CLI. */
export function isLoopbackHost(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname === '[::1]' ||
    /^127\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$/.test(hostname)
  );
}

/** Why the CLI will not send credentials to `url`, or undefined when it will. */
export function insecureServerProblem(url: URL): string | undefined {
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  if (url.protocol === 'http:') {
    return `refusing plain http to ${url.host}: credentials would cross the network unencrypted; use https (plain http is allowed only for localhost and 127.0.0.1)`;
  }
  return `${url.href} is not an http or https URL`;
}

const discovered = new Map<string, Promise<client.Configuration>>();

/**
 * openid-client's configuration for the `mnemo-cli` client of `issuer`, from its discovery
 * document (fetched once per process).
 */
export function discoverServer(issuer: string): Promise<client.Configuration> {
  let configuration = discovered.get(issuer);
  if (!configuration) {
    configuration = discover(issuer);
    discovered.set(issuer, configuration);
    configuration.catch(() => discovered.delete(issuer));
  }
  return configuration;
}

async function discover(issuer: string): Promise<client.Configuration> {
  const url = new URL(issuer);
  const problem = insecureServerProblem(url);
  if (problem) throw new Error(problem);
  try {
    return await client.discovery(
      url,
      CLI_CLIENT_ID,
      undefined,
      client.None(),
      url.protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : undefined,
    );
  } catch (error) {
    throw serverFailure(issuer, error, `no mnemo authorization server answers at ${issuer}`);
  }
}

/**
 * An error of a request to `issuer`, as a sentence a person can act on: the server's own
 * `error_description` when it gave one, the network's reason when it could not be reached.
 */
export function serverFailure(issuer: string, error: unknown, context?: string): Error {
  const prefix = context ?? `${issuer} refused`;
  if (error instanceof client.ResponseBodyError) {
    return new Error(`${prefix}: ${error.error_description ?? error.error}`);
  }
  if (error instanceof client.WWWAuthenticateChallengeError) {
    const challenge = error.cause[0]?.parameters;
    return new Error(
      `${prefix}: ${challenge?.error_description ?? challenge?.error ?? `status ${error.status}`}`,
    );
  }
  if (error instanceof TypeError && error.message === 'fetch failed') {
    const cause = error.cause as { code?: string; message?: string } | undefined;
    return new Error(`cannot reach ${issuer}: ${cause?.code ?? cause?.message ?? 'fetch failed'}`);
  }
  if (error instanceof client.ClientError) {
    const cause = error.cause;
    // openid-client rejects a response it cannot use with the response as the cause.
    const detail = cause instanceof Response ? ` (HTTP ${cause.status})` : '';
    const reached = errorOfCause(cause);
    if (reached) return new Error(`cannot reach ${issuer}: ${reached}`);
    return new Error(`${prefix}: ${error.message}${detail}`);
  }
  return error instanceof Error ? error : new Error(String(error));
}

/** The network's reason inside a ClientError's cause (a timeout, a refused connection). */
function errorOfCause(cause: unknown): string | undefined {
  if (cause instanceof DOMException && cause.name === 'TimeoutError') return 'timed out';
  if (cause instanceof TypeError && cause.message === 'fetch failed') {
    const inner = cause.cause as { code?: string } | undefined;
    return inner?.code ?? 'fetch failed';
  }
  return undefined;
}

/** The stored credential for `issuer`, as it is, or undefined. */
export async function findCredential(
  issuer: string,
  path = cliCredentialsPath(),
): Promise<StoredCredential | undefined> {
  return (await readCredentialFile(path)).credentials[issuer];
}

/** The server `mnemo login` signed in to last (its public URL), or undefined. */
export async function rememberedServer(path = cliCredentialsPath()): Promise<string | undefined> {
  return (await readCredentialFile(path)).server;
}

/**
 * Stores `credential` for the server at `publicUrl` (under its issuer), replacing any before it,
 * which it returns; and remembers that server as the one later commands talk to.
 */
export async function saveCredential(
  publicUrl: string,
  credential: StoredCredential,
  path = cliCredentialsPath(),
): Promise<StoredCredential | undefined> {
  const issuer = issuerOf(publicUrl);
  return updateCredentialFile(path, (file) => {
    const previous = file.credentials[issuer];
    file.credentials[issuer] = credential;
    file.server = publicUrl;
    return previous;
  });
}

/**
 * Removes the credential for the server at `publicUrl` and returns it (undefined when there was
 * none); forgets the server too when it is the remembered one, so that later commands go back to
 * the environment's.
 */
export async function removeCredential(
  publicUrl: string,
  path = cliCredentialsPath(),
): Promise<StoredCredential | undefined> {
  const issuer = issuerOf(publicUrl);
  // Nothing to forget: no file is written (or made).
  const { credentials, server } = await readCredentialFile(path);
  if (!credentials[issuer] && server !== publicUrl) return undefined;
  return updateCredentialFile(path, (file) => {
    const previous = file.credentials[issuer];
    delete file.credentials[issuer];
    if (file.server === publicUrl) delete file.server;
    return previous;
  });
}

/**
 * The credential for `issuer` with an access token valid for at least another minute: refreshed
 * with the stored refresh token when it is not, and the rotated refresh token stored at once.
 * Throws NotSignedIn when there is none, or when the server no longer takes the refresh token
 * (the entry is then removed).
 */
export async function currentCredential(
  issuer: string,
  path = cliCredentialsPath(),
): Promise<StoredCredential> {
  const stored = await findCredential(issuer, path);
  if (!stored) throw new NotSignedIn(issuer);
  if (isFresh(stored)) return stored;
  const configuration = await discoverServer(issuer);
  return withLock(path, async () => {
    // Another process may have refreshed it, or signed out, while this one waited.
    const file = await readCredentialFile(path);
    const credential = file.credentials[issuer];
    if (!credential) throw new NotSignedIn(issuer);
    if (isFresh(credential)) return credential;
    let tokens: Awaited<ReturnType<typeof client.refreshTokenGrant>>;
    try {
      tokens = await client.refreshTokenGrant(configuration, credential.refreshToken);
    } catch (error) {
      // RFC 6749 §5.2: invalid_grant — the refresh token "is invalid, expired, revoked, …".
      if (error instanceof client.ResponseBodyError && error.error === 'invalid_grant') {
        delete file.credentials[issuer];
        await writeCredentialFile(path, file);
        throw new NotSignedIn(issuer, 'the sign-in has expired or was revoked');
      }
      throw serverFailure(issuer, error, `cannot refresh the sign-in to ${issuer}`);
    }
    const refreshed: StoredCredential = {
      ...credential,
      accessToken: tokens.access_token,
      // RFC 6749 §6: the server "MAY issue a new refresh token"; mnemo's always does.
      refreshToken: tokens.refresh_token ?? credential.refreshToken,
      expiresAt: expiresAt(tokens.expiresIn()),
    };
    file.credentials[issuer] = refreshed;
    await writeCredentialFile(path, file);
    return refreshed;
  });
}

/**
 * An access token for `issuer`'s mnemo server, valid for at least another minute.
 *
 * @example
 * const token = await currentAccessToken('https://mnemo.example.com/oauth');
 * await fetch('https://mnemo.example.com/api/v1/memory', {
 *   headers: { authorization: `Bearer ${token}` },
 * });
 */
export async function currentAccessToken(
  issuer: string,
  path = cliCredentialsPath(),
): Promise<string> {
  return (await currentCredential(issuer, path)).accessToken;
}

/** When an access token given now with `expiresIn` seconds expires; now when unknown. */
export const expiresAt = (expiresIn: number | undefined) =>
  new Date(Date.now() + (expiresIn ?? 0) * 1000).toISOString();

function isFresh(credential: StoredCredential): boolean {
  const expires = Date.parse(credential.expiresAt);
  return Number.isFinite(expires) && expires - Date.now() > REFRESH_MARGIN_MS;
}

async function readCredentialFile(path: string): Promise<CredentialFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return { credentials: {} };
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!Value.Check(CredentialFile, parsed)) {
    throw new Error(`${path} is not a mnemo credentials file: remove it and run mnemo login`);
  }
  return parsed;
}

/** Reads, changes and writes the file under its lock; returns what `change` returns. */
async function updateCredentialFile<T>(
  path: string,
  change: (file: CredentialFile) => T,
): Promise<T> {
  await ensureDirectory(dirname(path));
  return withLock(path, async () => {
    const file = await readCredentialFile(path);
    const result = change(file);
    await writeCredentialFile(path, file);
    return result;
  });
}

/** The directory, owner-only (0700); its parents as the umask has them. */
async function ensureDirectory(directory: string): Promise<void> {
  await mkdir(dirname(directory), { recursive: true });
  try {
    await mkdir(directory, { mode: 0o700 });
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error;
  }
}

/** Replaces the file whole: a temporary file (0600) in the same directory, renamed over it. */
async function writeCredentialFile(path: string, file: CredentialFile): Promise<void> {
  const directory = dirname(path);
  const temporary = join(directory, `.credentials-${process.pid}-${randomUUID()}.tmp`);
  const handle = await open(temporary, 'wx', 0o600);
  try {
    try {
      await handle.writeFile(`${JSON.stringify(file, null, 2)}\n`);
      // On disk before the rename makes it the file: a crash leaves the old file or the new.
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
  await syncDirectory(directory);
}

/** Makes the rename itself durable; some file systems cannot sync a directory, and need not. */
async function syncDirectory(directory: string): Promise<void> {
  try {
    const handle = await open(directory, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {}
}

/** How long to wait for another process's lock: its refresh takes two requests of ≤30 s each. */
const LOCK_WAIT_MS = 90_000;
/** A lock older than this is left over from a process that died (its pid since reused). */
const LOCK_STALE_MS = 120_000;

/** Runs `run` holding `<path>.lock`, a file naming the holder's pid, created exclusively. */
async function withLock<T>(path: string, run: () => Promise<T>): Promise<T> {
  const lock = `${path}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const handle = await open(lock, 'wx', 0o600);
      try {
        await handle.writeFile(String(process.pid));
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
      if (await isStaleLock(lock)) {
        await unlink(lock).catch(() => {});
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(`${lock} is held by another mnemo; remove it if none is running`);
      }
      await sleep(50);
    }
  }
  try {
    return await run();
  } finally {
    await unlink(lock).catch(() => {});
  }
}

async function isStaleLock(lock: string): Promise<boolean> {
  let holder: string;
  let ageMs: number;
  try {
    [holder, ageMs] = await Promise.all([
      readFile(lock, 'utf8'),
      stat(lock).then((s) => Date.now() - s.mtimeMs),
    ]);
  } catch {
    return false; // gone already: the next attempt takes it
  }
  if (ageMs > LOCK_STALE_MS) return true;
  const pid = Number(holder);
  // Empty: its holder is between creating and writing it, or died there; age decides.
  if (holder === '' || !Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return errorCode(error) === 'ESRCH';
  }
}

const errorCode = (error: unknown) => (error as { code?: unknown } | null)?.code;
