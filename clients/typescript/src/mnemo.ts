import { type Auth, createTokenSource } from './auth.ts';
import { EndUsers } from './end-users.ts';
import { Memories } from './memories.ts';
import { createTransport, type RetryOptions } from './transport.ts';

export interface MnemoOptions {
  /** Where mnemo is served, e.g. `https://mnemo.example.com` (its API is under `/api/v1`). */
  readonly baseUrl: string;
  /** The organization every request acts in (`X-Organization-Id`). */
  readonly organizationId: string;
  /** A platform credential, a function that gives one, or an app's client credentials. */
  readonly auth: Auth;
  /** The `fetch` to send requests with; the platform's by default. */
  readonly fetch?: typeof fetch;
  /** How a 429 is waited out. */
  readonly retry?: RetryOptions;
}

/**
 * A client of one mnemo server, acting in one organization.
 *
 * @example
 * const mnemo = new Mnemo({
 *   baseUrl: 'https://mnemo.example.com',
 *   organizationId: '3f1c…',
 *   auth: { clientId: process.env.MNEMO_CLIENT_ID, clientSecret: process.env.MNEMO_CLIENT_SECRET },
 * });
 * await mnemo.memories.add({ content: 'Prefers tea over coffee', category: 'preference' });
 */
export class Mnemo {
  /** The memory API. */
  readonly memories: Memories;
  /** The people an app remembers, by its own ids (owners, admins and admin apps). */
  readonly endUsers: EndUsers;

  constructor(options: MnemoOptions) {
    const baseUrl = options.baseUrl.replace(/\/+$/, '');
    // Bound: a platform's fetch called as a method of another object throws (browsers).
    const fetcher = options.fetch ?? globalThis.fetch.bind(globalThis);
    const transport = createTransport({
      baseUrl,
      organizationId: options.organizationId,
      token: createTokenSource(options.auth, baseUrl, fetcher),
      fetch: fetcher,
      retry: options.retry ?? {},
    });
    this.memories = new Memories(transport);
    this.endUsers = new EndUsers(transport, options.organizationId);
  }
}
