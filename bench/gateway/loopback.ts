import { readFileSync } from 'node:fs';

/**
 * Keeping a process the bench starts to the loopback interface, and checking that it is: what
 * Linux lists in /proc/net/tcp and /proc/net/tcp6 (proc(5)) for a listening port.
 */

export const LOOPBACK = '127.0.0.1';

/**
 * The arguments of `net.Server#listen` with a host where they name none:
 * `listen([port][, host][, backlog][, callback])` or `listen(options[, callback])`. A host
 * given, or a Unix socket path, is left as it is.
 */
export function withLoopbackHost(args: readonly unknown[]): unknown[] {
  const [first, second, ...rest] = args;
  if (first === undefined || typeof first === 'function') return [0, LOOPBACK, ...args.slice(1)];
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    if (typeof second === 'string') return [...args];
    // `second` is left out (undefined), a backlog or the callback.
    return second === undefined ? [first, LOOPBACK, ...rest] : [first, LOOPBACK, ...args.slice(1)];
  }
  if (typeof first === 'object' && first !== null) {
    const options = first as { path?: unknown; host?: unknown };
    if (options.path === undefined && options.host === undefined) {
      return [{ ...first, host: LOOPBACK }, ...args.slice(1)];
    }
  }
  return [...args];
}

/** TCP_LISTEN in the `st` column. */
const LISTEN = '0A';

/**
 * The local addresses (as bytes) of the sockets listening on `port` in the text of
 * /proc/net/tcp or /proc/net/tcp6. The kernel prints each address as 32-bit words in hex, each
 * word in host byte order (little-endian here), then `:` and the port in hex.
 */
export function listeningAddresses(procNetTcp: string, port: number): number[][] {
  const found: number[][] = [];
  for (const line of procNetTcp.split('\n').slice(1)) {
    const [, local, , state] = line.trim().split(/\s+/);
    if (!local || state !== LISTEN) continue;
    const [address, hexPort] = local.split(':');
    if (!address || Number.parseInt(hexPort ?? '', 16) !== port) continue;
    const bytes: number[] = [];
    for (let word = 0; word < address.length; word += 8) {
      const hex = address.slice(word, word + 8);
      for (let at = 6; at >= 0; at -= 2) bytes.push(Number.parseInt(hex.slice(at, at + 2), 16));
    }
    found.push(bytes);
  }
  return found;
}

/** 127.0.0.0/8, ::1, or 127.0.0.0/8 mapped into IPv6 (::ffff:127.x.y.z). */
export function isLoopback(bytes: readonly number[]): boolean {
  if (bytes.length === 4) return bytes[0] === 127;
  if (bytes.length !== 16) return false;
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  if (zeros(0, 15) && bytes[15] === 1) return true;
  return zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff && bytes[12] === 127;
}

export function formatAddress(bytes: readonly number[]): string {
  if (bytes.length === 4) return bytes.join('.');
  const groups: string[] = [];
  for (let at = 0; at < bytes.length; at += 2) {
    groups.push((((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0)).toString(16));
  }
  return groups.join(':');
}

/**
 * Throws unless something listens on `port` and every socket that does is on a loopback
 * address. Without /proc (not Linux) there is nothing to read: it says so and returns.
 */
export function assertLoopbackOnly(port: number, what: string, log: (line: string) => void): void {
  let tables: string[];
  try {
    tables = ['/proc/net/tcp', '/proc/net/tcp6'].map((file) => readFileSync(file, 'utf8'));
  } catch {
    log(`${what}: /proc/net/tcp cannot be read; could not check that it listens on loopback only`);
    return;
  }
  const addresses = tables.flatMap((table) => listeningAddresses(table, port));
  if (addresses.length === 0) throw new Error(`${what}: nothing listens on port ${port}`);
  const outside = addresses.filter((address) => !isLoopback(address));
  if (outside.length > 0) {
    throw new Error(
      `${what} listens on port ${port} beyond loopback: ${outside.map(formatAddress).join(', ')}`,
    );
  }
}
