import ipaddr from 'ipaddr.js';
import type { IPv4, IPv6 } from 'ipaddr.js';

/** Global unicast IPv6 is 2000::/3; everything outside it is local, special or unassigned. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

const v4 = (value: number) => ipaddr.fromByteArray([(value >>> 24) & 255, (value >>> 16) & 255, (value >>> 8) & 255, value & 255]) as IPv4;
/** The 32 bits of an IPv6 address that start at 16-bit part `index`. */
const bitsAt = (address: IPv6, index: number) => ((address.parts[index]! << 16) | address.parts[index + 1]!) >>> 0;

/**
 * The IPv4 addresses an IPv6 address carries and that a packet sent to it reaches: IPv4-mapped and
 * SIIT (`::ffff:a.b.c.d`, `::ffff:0:a.b.c.d`), IPv4-compatible (`::a.b.c.d`), NAT64 (`64:ff9b::/96`),
 * 6to4 (`2002:aabb:ccdd::/48`) and Teredo (server and obfuscated client). Empty for the others.
 */
function embeddedIpv4(address: IPv6): IPv4[] {
  const range = address.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145' || (range === 'rfc6052' && address.parts[2] === 0)) return [v4(bitsAt(address, 6))];
  if (range === '6to4') return [v4(bitsAt(address, 1))];
  if (range === 'teredo') return [v4(bitsAt(address, 2)), v4(~bitsAt(address, 6) >>> 0)];
  if (range === 'unicast' && address.match(IPV4_COMPATIBLE)) return [v4(bitsAt(address, 6))];
  return [];
}

/**
 * Why an IP address may not be a callback target, or undefined when it is global unicast. Only
 * global unicast is allowed: loopback, private, link-local, carrier-grade NAT, multicast,
 * broadcast, `0.0.0.0/8`, reserved (`240.0.0.0/4`, benchmarking `198.18.0.0/15`, documentation)
 * are refused, and IPv6 transition forms are judged by the IPv4 address inside them.
 */
export function addressProblem(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return undefined;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') {
    const range = parsed.range();
    return range === 'unicast' ? undefined : range;
  }
  const v6 = parsed as IPv6;
  const inner = embeddedIpv4(v6);
  if (inner.length > 0) {
    for (const ipv4 of inner) {
      const problem = addressProblem(ipv4.toString());
      if (problem) return `${v6.range() === 'unicast' ? 'ipv4Compatible' : v6.range()} of ${ipv4.toString()}, ${problem}`;
    }
    return undefined;
  }
  const range = v6.range();
  if (range !== 'unicast') return range;
  return v6.match(GLOBAL_UNICAST_V6) ? undefined : 'not global unicast';
}

/** Whether an IP address (either family) is anything but global unicast. Names are not addresses: false. */
export const isPrivateAddress = (address: string): boolean => addressProblem(address) !== undefined;

/** Host names that always mean this machine, whatever DNS says. */
const LOCAL_NAME = /(^|\.)localhost\.?$/i;

/**
 * A reason the URL cannot be a callback target, or undefined when it can. The URL parser has
 * already turned decimal, hex, octal and short IPv4 forms (`2130706433`, `0x7f.1`, `127.1`) into
 * dotted quads, so every literal address is classified here; names are checked again at send time
 * against every address DNS returns.
 */
export function callbackUrlProblem(value: string, allowPrivate: boolean): string | undefined {
  if (value.length > 2048) return 'callbackurl must be at most 2048 characters';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `callbackurl "${value}" is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `callbackurl must be http or https, got ${url.protocol}`;
  if (url.username || url.password) return 'callbackurl must not carry credentials';
  if (allowPrivate) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const problem = LOCAL_NAME.test(host) ? 'loopback' : addressProblem(host);
  if (problem) {
    return `callbackurl ${host} is not a public address (${problem}); set SNSR_CALLBACK_ALLOW_PRIVATE=true to allow it`;
  }
  return undefined;
}
