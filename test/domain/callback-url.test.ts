import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { addressProblem, callbackUrlProblem } from '../../src/domain/callback-url.js';
import { guardedLookup } from '../../src/delivery/guarded-lookup.js';

/** Every form of address that reaches this machine or its network, with the reason it is refused. */
const REFUSED: [string, string, RegExp][] = [
  ['loopback', 'http://127.0.0.1/cb', /loopback/],
  ['private 10/8', 'http://10.1.2.3/cb', /private/],
  ['link-local metadata', 'http://169.254.169.254/latest', /linkLocal/],
  ['0.0.0.0/8', 'http://0.1.2.3/cb', /unspecified/],
  ['240.0.0.0/4', 'http://240.1.2.3/cb', /reserved/],
  ['100.64.0.0/10', 'http://100.64.1.1/cb', /carrierGradeNat/],
  ['198.18.0.0/15', 'http://198.19.0.1/cb', /reserved/],
  ['IPv4 multicast', 'http://224.0.0.251/cb', /multicast/],
  ['broadcast', 'http://255.255.255.255/cb', /broadcast/],
  ['decimal form', 'http://2130706433/cb', /127\.0\.0\.1 .*loopback/],
  ['hex form', 'http://0x7f000001/cb', /127\.0\.0\.1 .*loopback/],
  ['short form', 'http://127.1/cb', /127\.0\.0\.1 .*loopback/],
  ['octal form', 'http://0177.0.0.1/cb', /127\.0\.0\.1 .*loopback/],
  ['localhost', 'http://localhost:8080/cb', /loopback/],
  ['IPv6 loopback', 'http://[::1]/cb', /loopback/],
  ['IPv6 unique local', 'http://[fd00::1]/cb', /uniqueLocal/],
  ['IPv6 link-local', 'http://[fe80::1]/cb', /linkLocal/],
  ['IPv6 multicast', 'http://[ff02::1]/cb', /multicast/],
  ['IPv4-mapped', 'http://[::ffff:10.0.0.1]/cb', /ipv4Mapped of 10\.0\.0\.1, private/],
  ['IPv4-compatible', 'http://[::127.0.0.1]/cb', /ipv4Compatible of 127\.0\.0\.1, loopback/],
  ['NAT64', 'http://[64:ff9b::a9fe:a9fe]/cb', /rfc6052 of 169\.254\.169\.254, linkLocal/],
  ['6to4', 'http://[2002:c0a8:0001::1]/cb', /6to4 of 192\.168\.0\.1, private/],
  ['Teredo (client 127.0.0.1)', 'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/cb', /teredo of 127\.0\.0\.1, loopback/],
  ['IPv6 documentation', 'http://[2001:db8::1]/cb', /reserved/],
];

const ALLOWED = [
  'https://example.com/hook',
  'http://93.184.215.14/cb',
  'http://[2606:4700:4700::1111]/cb',
  'http://[64:ff9b::5db8:d70e]/cb', // NAT64 of a public address
  'http://[2002:5db8:d70e::1]/cb', // 6to4 of a public address
];

describe('callback targets at save time', () => {
  it.each(REFUSED)('refuses %s', (_name, url, reason) => {
    const problem = callbackUrlProblem(url, false);
    expect(problem).toMatch(/^callbackurl \S+ is not a public address \(.+\); set SNSR_CALLBACK_ALLOW_PRIVATE=true to allow it$/);
    expect(problem).toMatch(reason);
  });

  it.each(ALLOWED)('accepts global unicast %s', (url) => {
    expect(callbackUrlProblem(url, false)).toBeUndefined();
  });

  it('accepts anything http(s) when private targets are allowed, and never other schemes or credentials', () => {
    for (const [, url] of REFUSED) expect(callbackUrlProblem(url, true)).toBeUndefined();
    expect(callbackUrlProblem('ftp://example.com/', true)).toMatch(/must be http or https/);
    expect(callbackUrlProblem('http://user:pw@example.com/', false)).toMatch(/credentials/);
    expect(callbackUrlProblem(`https://example.com/${'a'.repeat(2100)}`, false)).toMatch(/at most 2048 characters/);
  });
});

/** A resolver that answers the given addresses for any name, as `dns.lookup` with `all` would. */
const fakeDns = (addresses: string[]) =>
  ((_host: string, _options: unknown, callback: (error: Error | null, addresses: LookupAddress[]) => void) =>
    callback(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })))) as never;

function resolveThrough(addresses: string[]): Promise<{ error: Error | null; addresses: LookupAddress[] }> {
  return new Promise((resolve) =>
    guardedLookup(false, fakeDns(addresses))('hook.example', { all: true }, (error, result) => resolve({ error, addresses: result as LookupAddress[] })),
  );
}

describe('callback targets at send time', () => {
  const literal = (url: string) => new URL(url).hostname.replace(/^\[|\]$/g, '');

  it.each(REFUSED.filter(([name]) => name !== 'localhost'))('refuses a name that DNS resolves to %s', async (_name, url, reason) => {
    const address = literal(url);
    const { error } = await resolveThrough([address]);
    expect(error?.message).toMatch(/^refused: \S+ is not a public address \(.+\)$/);
    expect(error?.message).toMatch(reason);
  });

  it('connects only to the checked addresses of a mixed answer', async () => {
    const { error, addresses } = await resolveThrough(['127.0.0.1', '93.184.215.14', '64:ff9b::7f00:1', '2606:4700:4700::1111']);
    expect(error).toBeNull();
    expect(addresses.map((a) => a.address)).toEqual(['93.184.215.14', '2606:4700:4700::1111']);
  });

  it('classifies names as no address: the DNS answer decides', () => {
    expect(addressProblem('hook.example')).toBeUndefined();
  });
});
