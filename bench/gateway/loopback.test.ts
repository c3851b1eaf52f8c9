import { describe, expect, it } from 'vitest';
import { formatAddress, isLoopback, listeningAddresses, withLoopbackHost } from './loopback.ts';

describe('withLoopbackHost', () => {
  const callback = () => {};

  it('puts 127.0.0.1 where listen() names no host', () => {
    expect(withLoopbackHost([8080, undefined, callback])).toEqual([8080, '127.0.0.1', callback]);
    expect(withLoopbackHost([8080, callback])).toEqual([8080, '127.0.0.1', callback]);
    expect(withLoopbackHost([8080, 511, callback])).toEqual([8080, '127.0.0.1', 511, callback]);
    expect(withLoopbackHost(['8080'])).toEqual(['8080', '127.0.0.1']);
    expect(withLoopbackHost([])).toEqual([0, '127.0.0.1']);
    expect(withLoopbackHost([callback])).toEqual([0, '127.0.0.1']);
    expect(withLoopbackHost([{ port: 8080 }, callback])).toEqual([
      { port: 8080, host: '127.0.0.1' },
      callback,
    ]);
  });

  it('leaves a host given, or a Unix socket, as it is', () => {
    expect(withLoopbackHost([8080, '::1', callback])).toEqual([8080, '::1', callback]);
    expect(withLoopbackHost([{ port: 1, host: '0.0.0.0' }])).toEqual([
      { port: 1, host: '0.0.0.0' },
    ]);
    expect(withLoopbackHost([{ path: '/tmp/s.sock' }])).toEqual([{ path: '/tmp/s.sock' }]);
  });
});

// Lines as Linux prints them (proc(5)), trimmed after the inode.
const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 101
   1: 00000000:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 102
   2: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 103
`;
const TCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:1F91 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 201
   1: 00000000000000000000000001000000:1F92 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 202
   2: 0000000000000000FFFF00000100007F:1F93 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 203
`;

describe('listeningAddresses', () => {
  it('reads the listening sockets of a port, each word of the address little-endian', () => {
    const [v4] = listeningAddresses(TCP, 0x1f90);
    expect(listeningAddresses(TCP, 0x1f90)).toHaveLength(1); // the connection (st 01) is not one
    expect(formatAddress(v4 ?? [])).toBe('127.0.0.1');
    expect(isLoopback(v4 ?? [])).toBe(true);
  });

  it('tells loopback from every interface, on IPv4 and IPv6', () => {
    const any4 = listeningAddresses(TCP, 0x1f91);
    const any6 = listeningAddresses(TCP6, 0x1f91);
    expect(any4.map(formatAddress)).toEqual(['0.0.0.0']);
    expect(any6.map(formatAddress)).toEqual(['0:0:0:0:0:0:0:0']);
    expect([...any4, ...any6].some(isLoopback)).toBe(false);

    const [one] = listeningAddresses(TCP6, 0x1f92);
    expect(formatAddress(one ?? [])).toBe('0:0:0:0:0:0:0:1');
    expect(isLoopback(one ?? [])).toBe(true);
    const [mapped] = listeningAddresses(TCP6, 0x1f93);
    expect(formatAddress(mapped ?? [])).toBe('0:0:0:0:0:ffff:7f00:1');
    expect(isLoopback(mapped ?? [])).toBe(true);
  });

  it('finds nothing on a port nobody listens on', () => {
    expect(listeningAddresses(TCP, 9)).toEqual([]);
  });
});
