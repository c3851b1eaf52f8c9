/**
 * Which addresses a webhook never reaches unless the operator allows them, every spelling of
 * them (IPv4 carried in IPv6 too); what a URL may be; and the connection's own look-up: every
 * address a name has checked, the connection given only those.
 */
import { describe, expect, test } from 'vitest';
import {
  FORBIDDEN_ADDRESS,
  forbiddenClass,
  guardedLookup,
  type Resolve,
  TargetRefused,
  urlProblem,
} from './webhook-targets.ts';

describe('forbiddenClass', () => {
  test.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['10.0.0.0', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['fc00::1', 'private'],
    ['fdff:ffff::1', 'private'],
    ['169.254.169.254', 'cloud metadata'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['169.254.0.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['100.64.0.0', 'shared (carrier-grade NAT)'],
    ['100.127.255.255', 'shared (carrier-grade NAT)'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    // IPv4 carried in IPv6: judged as itself.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'cloud metadata'],
    ['::ffff:a00:1', 'private'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::192.168.1.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'cloud metadata'],
  ])('%s: %s', (address, name) => {
    expect(forbiddenClass(address)).toBe(name);
  });

  test.each([
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '172.15.255.255',
    '172.32.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '169.253.255.255',
    '2606:4700::1111',
    '2001:db8::1',
    '::ffff:93.184.216.34',
    '64:ff9b::808:808',
    'example.com',
  ])('%s: none', (address) => {
    expect(forbiddenClass(address)).toBeUndefined();
  });
});

describe('urlProblem', () => {
  const strict = { allowHttp: false, allowPrivate: false };
  const open = { allowHttp: true, allowPrivate: true };

  test('https to a name or a public address: none', () => {
    for (const url of [
      'https://hooks.example.test/mnemo',
      'https://hooks.example.test:8443/a?b=c',
      'https://93.184.216.34/x',
      'https://[2606:4700::1111]/x',
      'https://localhost/x',
    ]) {
      expect(urlProblem(url, strict), url).toBeUndefined();
    }
  });

  test('what is refused, and what the operator’s settings allow', () => {
    expect(urlProblem('http://hooks.example.test/', strict)).toBe(
      'url must use https (this server does not send webhooks over plain http)',
    );
    expect(urlProblem('http://hooks.example.test/', open)).toBeUndefined();
    for (const url of ['https://', 'mailto:a@b.test', 'not a url', 'file:///etc/passwd']) {
      expect(urlProblem(url, open), url).toBe('url must be an absolute https:// URL');
    }
    expect(urlProblem('https://a:b@hooks.example.test/', open)).toBe(
      'url must not contain a user name or password',
    );
    for (const url of [
      'https://127.0.0.1/',
      'https://[::1]:8443/',
      'https://169.254.169.254/latest/meta-data/',
      'https://[::ffff:10.0.0.1]/',
      'https://2130706433/',
      'https://0x7f000001/',
      'https://017700000001/',
      'https://10.1/',
    ]) {
      expect(urlProblem(url, strict), url).toBe(FORBIDDEN_ADDRESS);
      expect(urlProblem(url, open), url).toBeUndefined();
    }
  });
});

describe('guardedLookup', () => {
  const dns: Record<string, string[]> = {
    'public.test': ['93.184.216.34', '2606:4700::1111'],
    'rebind.test': ['93.184.216.34', '127.0.0.1'],
  };
  const resolve: Resolve = async (hostname) =>
    (dns[hostname] ?? []).map((address) => ({
      address,
      family: address.includes(':') ? 6 : 4,
    }));

  function look(
    policy: { allowHttp: boolean; allowPrivate: boolean },
    host: string,
    all: boolean,
    family = 0,
  ) {
    return new Promise<{ error: Error | null; address: unknown; family?: number }>((done) => {
      guardedLookup(policy, resolve)(host, { all, family }, (error, address, resolved) =>
        done({ error, address, ...(resolved === undefined ? {} : { family: resolved }) }),
      );
    });
  }

  test('every address checked: one forbidden refuses the name', async () => {
    const refused = await look({ allowHttp: true, allowPrivate: false }, 'rebind.test', true);
    expect(refused.error).toBeInstanceOf(TargetRefused);
    expect(refused.error?.message).toBe(
      'refused: rebind.test resolves to 127.0.0.1, a loopback address',
    );
    expect(
      (await look({ allowHttp: true, allowPrivate: true }, 'rebind.test', true)).address,
    ).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ]);
  });

  test('the connection gets the addresses checked, as it asks for them', async () => {
    const policy = { allowHttp: false, allowPrivate: false };
    expect(await look(policy, 'public.test', true)).toEqual({
      error: null,
      address: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:4700::1111', family: 6 },
      ],
    });
    expect(await look(policy, 'public.test', false)).toEqual({
      error: null,
      address: '93.184.216.34',
      family: 4,
    });
    expect(await look(policy, 'public.test', false, 6)).toEqual({
      error: null,
      address: '2606:4700::1111',
      family: 6,
    });
    const none = await look(policy, 'unknown.test', true);
    expect(none.error?.message).toBe('unknown.test has no address');
  });
});
