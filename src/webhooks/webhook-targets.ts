import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Where webhooks may be sent (docs/webhooks.md, "Targets"): `https://` only unless the operator
 * allows plain http (`MNEMO_WEBHOOKS_ALLOW_HTTP=1`), and never to an address of the classes
 * below unless the operator allows them (`MNEMO_WEBHOOKS_ALLOW_PRIVATE_TARGETS=1`): a webhook's
 * URL is chosen by an organization's admins, and must not reach into the network mnemo runs in
 * (its loopback, its private network, the cloud's metadata service).
 *
 * The address is checked when the connection is made: the name is resolved once (every address
 * it has, `dns.lookup` with `all: true`), every address is checked, and the connection is made
 * to the addresses checked (`guardedLookup`, the connection's own look-up), so a name that
 * resolves elsewhere the second time (DNS rebinding) reaches nothing unchecked. A URL whose host
 * is an address is checked before any connection (Node does not look addresses up).
 */
export interface TargetPolicy {
  /** Plain `http://` targets are allowed. */
  readonly allowHttp: boolean;
  /** Loopback, private, link-local and the other classes below are allowed. */
  readonly allowPrivate: boolean;
}

/** A target refused: why, in words for the delivery log and the API. */
export class TargetRefused extends Error {
  override readonly name = 'TargetRefused';
}

/** Address classes no webhook reaches unless allowed, most specific first (the reason names it). */
const CLASSES: readonly { readonly name: string; readonly ranges: readonly string[] }[] = [
  { name: 'cloud metadata', ranges: ['169.254.169.254/32', 'fd00:ec2::254/128'] },
  { name: 'loopback', ranges: ['127.0.0.0/8', '::1/128'] },
  { name: 'unspecified', ranges: ['0.0.0.0/8', '::/128'] },
  { name: 'private', ranges: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'] },
  { name: 'link-local', ranges: ['169.254.0.0/16', 'fe80::/10'] },
  { name: 'shared (carrier-grade NAT)', ranges: ['100.64.0.0/10'] },
  { name: 'broadcast', ranges: ['255.255.255.255/32'] },
  { name: 'multicast', ranges: ['224.0.0.0/4', 'ff00::/8'] },
  { name: 'reserved', ranges: ['240.0.0.0/4'] },
];

const LISTS = CLASSES.map(({ name, ranges }) => {
  const list = new BlockList();
  for (const range of ranges) {
    const [network = '', prefix = ''] = range.split('/');
    const family = isIP(network) === 6 ? 'ipv6' : 'ipv4';
    list.addSubnet(network, Number(prefix), family);
  }
  return { name, list };
});

/**
 * The IPv4 address an IPv6 address carries, if it is one of the forms that reach it: mapped
 * (`::ffff:a.b.c.d`), compatible (`::a.b.c.d`, deprecated) or NAT64's well-known prefix
 * (`64:ff9b::a.b.c.d`).
 */
function embeddedIpv4(address: string): string | undefined {
  const groups = expandIpv6(address);
  if (!groups) return undefined;
  const head = groups.slice(0, 6);
  const zeros = (n: number) => head.slice(0, n).every((g) => g === 0);
  const carries =
    (zeros(5) && head[5] === 0xffff) ||
    (zeros(6) && (groups[6] ?? 0) !== 0) ||
    (head[0] === 0x64 && head[1] === 0xff9b && head.slice(2).every((g) => g === 0));
  if (!carries) return undefined;
  const [high = 0, low = 0] = groups.slice(6);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The eight 16-bit groups of an IPv6 address (a zone `%eth0` left out); undefined if not one. */
function expandIpv6(address: string): number[] | undefined {
  const plain = address.split('%')[0] ?? '';
  if (isIP(plain) !== 6) return undefined;
  let text = plain;
  // A trailing dotted IPv4 is two groups.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [left = '', right] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const head = parse(left);
  const tail = right === undefined ? [] : parse(right);
  const missing = 8 - head.length - tail.length;
  return [...head, ...new Array<number>(right === undefined ? 0 : missing).fill(0), ...tail];
}

/** The forbidden class of an address (an IPv4 carried in IPv6 judged as itself), if any. */
export function forbiddenClass(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return undefined;
  const v4 = family === 6 ? embeddedIpv4(address) : undefined;
  for (const { name, list } of LISTS) {
    if (
      v4 !== undefined
        ? list.check(v4, 'ipv4')
        : list.check(address, family === 4 ? 'ipv4' : 'ipv6')
    ) {
      return name;
    }
  }
  return undefined;
}

/** A URL's host as an address, brackets of IPv6 removed; undefined for a name. */
const hostAddress = (url: URL) => {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) === 0 ? undefined : host;
};

/**
 * What is wrong with `raw` as a webhook's URL under `policy`, judged without resolving it (at
 * create and PATCH, and again before each delivery): undefined when nothing is.
 */
export function urlProblem(raw: string, policy: TargetPolicy): string | undefined {
  const url = URL.parse(raw);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.hostname === '') {
    return 'url must be an absolute https:// URL';
  }
  if (url.protocol === 'http:' && !policy.allowHttp) {
    return 'url must use https (this server does not send webhooks over plain http)';
  }
  if (url.username !== '' || url.password !== '') {
    return 'url must not contain a user name or password';
  }
  const address = hostAddress(url);
  if (address !== undefined && forbiddenClass(address) && !policy.allowPrivate) {
    return FORBIDDEN_ADDRESS;
  }
  return undefined;
}

/** The answer to a URL whose host is an address of a forbidden class. */
export const FORBIDDEN_ADDRESS =
  'url must not name a loopback, private, link-local, metadata or other special-use address';

/** Resolves a name to every address it has: `dns.lookup` by default; tests give their own. */
export type Resolve = (hostname: string) => Promise<readonly { address: string; family: number }[]>;

export const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });

/**
 * The look-up a connection makes (undici's `connect.lookup`, Node's `net.connect`): the name
 * resolved once, every address checked, and the connection given only the addresses checked.
 * A name with any forbidden address is refused (`TargetRefused`) unless the policy allows them.
 */
export function guardedLookup(policy: TargetPolicy, resolve: Resolve): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (found) => {
        const addresses = found.filter((a) => !options.family || a.family === options.family);
        if (addresses.length === 0) {
          callback(
            Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }),
            '',
          );
          return;
        }
        if (!policy.allowPrivate) {
          for (const { address } of addresses) {
            const forbidden = forbiddenClass(address);
            if (forbidden) {
              callback(
                new TargetRefused(
                  `refused: ${hostname} resolves to ${address}, ${/^[aeiou]/.test(forbidden) ? 'an' : 'a'} ${forbidden} address`,
                ) as NodeJS.ErrnoException,
                '',
              );
              return;
            }
          }
        }
        if (options.all) {
          callback(
            null,
            addresses.map(({ address, family }) => ({ address, family })),
          );
        } else {
          const [first] = addresses;
          callback(null, first?.address ?? '', first?.family ?? 4);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}
