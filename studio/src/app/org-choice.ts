/** The organization chosen last in this browser: a preference, not a secret. */
const KEY = 'mnemo.studio.org';

/**
 * The organization to open: the one a link names (`?org=<id>`, as the page after joining by
 * invitation sends), remembered from then on; else the one chosen last; else the first.
 */
export function rememberedOrg(
  available: readonly { id: string }[],
  search: string = location.search,
): string | undefined {
  const named = new URLSearchParams(search).get('org');
  const linked = available.find((org) => org.id === named)?.id;
  if (linked) {
    rememberOrg(linked);
    return linked;
  }
  const saved = localStorage.getItem(KEY);
  return available.find((org) => org.id === saved)?.id ?? available[0]?.id;
}

export function rememberOrg(orgId: string): void {
  localStorage.setItem(KEY, orgId);
}
