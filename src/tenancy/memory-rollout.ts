import type { Environment } from '../config.ts';

/**
 * Whether the memory API serves an organization, given its switch (`null` when never set) and
 * the environment. docs/design.md: sandbox and staging have memory on unless an organization switched
 * it off; production only for organizations whose rollout flag is on.
 *
 * Tenancy's rule, below both the memory routes (which refuse with 404 when off) and the
 * organization answers (which show it): neither reaches into the other for it.
 *
 * @example
 * memoryEnabled('production', null); // false
 * memoryEnabled('sandbox', null); // true
 */
export function memoryEnabled(environment: Environment, flag: boolean | null): boolean {
  return environment === 'production' ? flag === true : flag !== false;
}
