/**
 * Serialized full lists by scope and change counter. Every change of a scope's memories
 * advances its counter in the change's own transaction, and a full list reads the counter
 * before the rows, so the answer built for counter `v` holds every change up to `v` (and
 * perhaps later ones, which a fresh read could have returned too): it stays right for as long
 * as the counter reads `v`, in this process or any other. Nothing needs invalidating; a newer
 * counter simply misses. Bounded in bytes, least recently used first out. `Body`: what the
 * bodies are known to be (the list's, its JSON text).
 */
export interface ListCache<Body extends string = string> {
  get(scopeId: string, version: number): Body | undefined;
  set(scopeId: string, version: number, body: Body): void;
  /** Drops the store's list: the store was erased. */
  forget(scopeId: string): void;
}

export interface ListCacheOptions {
  /** Total size of the bodies kept, in bytes (UTF-16 units × 2). */
  readonly maxBytes: number;
  /** A larger body is not kept: it would push out many small ones. */
  readonly maxBodyBytes: number;
}

const sizeOf = (body: string) => body.length * 2;

export function createListCache<Body extends string = string>(
  options: ListCacheOptions,
): ListCache<Body> {
  // A Map iterates in insertion order: re-inserting on use keeps the oldest use first.
  const entries = new Map<string, { version: number; body: Body }>();
  let bytes = 0;

  function remove(scopeId: string): void {
    const entry = entries.get(scopeId);
    if (!entry) return;
    bytes -= sizeOf(entry.body);
    entries.delete(scopeId);
  }

  return {
    get(scopeId, version) {
      const entry = entries.get(scopeId);
      if (!entry || entry.version !== version) return undefined;
      entries.delete(scopeId);
      entries.set(scopeId, entry);
      return entry.body;
    },
    set(scopeId, version, body) {
      const size = sizeOf(body);
      const current = entries.get(scopeId);
      // Two requests that read different counters may finish in either order: keep the newer.
      if (current && current.version > version) return;
      remove(scopeId);
      if (size > options.maxBodyBytes || size > options.maxBytes) return;
      for (const [oldest] of entries) {
        if (bytes + size <= options.maxBytes) break;
        remove(oldest);
      }
      entries.set(scopeId, { version, body });
      bytes += size;
    },
    forget: remove,
  };
}
