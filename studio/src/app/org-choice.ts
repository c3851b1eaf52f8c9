/** The organization chosen last in this browser: a preference, not a secret. */
const KEY = 'mnemo.studio.org';

export function rememberedOrg(available: readonly { id: string }[]): string | undefined {
  const saved = localStorage.getItem(KEY);
  return available.find((org) => org.id === saved)?.id ?? available[0]?.id;
}

export function rememberOrg(orgId: string): void {
  localStorage.setItem(KEY, orgId);
}
