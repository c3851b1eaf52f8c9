import type Provider from 'oidc-provider';
import { currentSigningKid, loadSigningKeys } from '../credentials/index.ts';
import { createProvider, type ProviderOptions } from './provider.ts';

/** How often a process asks the store whether a newer key signs now. */
const KEY_CHECK_INTERVAL_MS = 5000;

export interface ProviderHolder {
  /** The provider built with the store's current keys. */
  current(): Promise<Provider>;
}

/**
 * oidc-provider fixes its keys when built, and `mnemo admin keys rotate` runs in
 * another process: so each process checks the store's newest key every few seconds, beside the
 * requests, and builds a new provider when it changed. Until then it signs with the previous
 * key, which stays trusted while its tokens live (signing-keys.ts); every state the provider
 * keeps is in the store, so nothing is lost by the swap.
 */
export function createProviderHolder(
  options: ProviderOptions,
  onError: (error: unknown) => void,
): ProviderHolder {
  let built: { provider: Provider; kid: string } | undefined;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let pending: Promise<void> | undefined;

  async function refresh(): Promise<void> {
    const kid = await currentSigningKid(options.database.db);
    if (built && kid === built.kid) return;
    const keys = await loadSigningKeys(options.database.db);
    const signer = keys[0];
    if (!signer) throw new Error('no signing key in the store');
    built = { provider: createProvider(options, keys), kid: signer.kid };
  }

  const check = () => {
    checkedAt = Date.now();
    pending ??= refresh().finally(() => {
      pending = undefined;
    });
    return pending;
  };

  return {
    async current() {
      if (!built) await check();
      else if (Date.now() - checkedAt > KEY_CHECK_INTERVAL_MS) check().catch(onError);
      if (!built) throw new Error('no provider');
      return built.provider;
    },
  };
}
