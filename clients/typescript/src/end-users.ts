import type { RequestOptions, Transport } from './transport.ts';
import type {
  EndUserDetails,
  EndUserInput,
  EndUserListQuery,
  EndUserPage,
  EndUserRegistration,
} from './types.ts';

/**
 * The people an app remembers, by the app's own ids (`/api/v1/orgs/{orgId}/end-users`): for the
 * organization's owners and admins, and its apps with the admin role. An end user's `id` is what
 * the memory API takes as `user`.
 */
export class EndUsers {
  readonly #transport: Transport;
  readonly #base: string;

  constructor(transport: Transport, organizationId: string) {
    this.#transport = transport;
    this.#base = `/api/v1/orgs/${encodeURIComponent(organizationId)}/end-users`;
  }

  /**
   * Registers an end user under the app's id, or finds the one registered: any number of calls
   * with one id make one end user. A `name` given replaces the one held.
   *
   * @example
   * const { endUser } = await mnemo.endUsers.register('customer-42', { name: 'Jane Doe' });
   * await mnemo.memories.add({ content: 'Prefers email', user: endUser.id });
   */
  async register(
    externalId: string,
    input: EndUserInput = {},
    options: RequestOptions = {},
  ): Promise<EndUserRegistration> {
    const response = await this.#transport.send({
      method: 'PUT',
      path: this.#path(externalId),
      body: input,
      signal: options.signal,
    });
    const { endUser } = (await response.json()) as Pick<EndUserRegistration, 'endUser'>;
    return { created: response.status === 201, endUser };
  }

  /** One end user, with how many memories are held of them; a MnemoError 404 when unknown. */
  async get(externalId: string, options: RequestOptions = {}): Promise<EndUserDetails> {
    const response = await this.#transport.send({
      method: 'GET',
      path: this.#path(externalId),
      signal: options.signal,
    });
    return ((await response.json()) as { endUser: EndUserDetails }).endUser;
  }

  /** A page of end users, newest first; pass the answer's `cursor` for the next page. */
  async list(query: EndUserListQuery = {}, options: RequestOptions = {}): Promise<EndUserPage> {
    const response = await this.#transport.send({
      method: 'GET',
      path: this.#base,
      query,
      signal: options.signal,
    });
    return (await response.json()) as EndUserPage;
  }

  /**
   * Erases the person: every memory of theirs, their contributions to pools, their grants and
   * keys, in one transaction. Succeeds also when they were already erased or never known.
   */
  async erase(externalId: string, options: RequestOptions = {}): Promise<void> {
    const response = await this.#transport.send({
      method: 'DELETE',
      path: this.#path(externalId),
      signal: options.signal,
    });
    await response.body?.cancel();
  }

  #path(externalId: string): string {
    // An external id may hold any character but controls: a `/` travels as %2F.
    return `${this.#base}/${encodeURIComponent(externalId)}`;
  }
}
