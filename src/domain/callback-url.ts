import { BlockList, isIP } from 'node:net';

/**
 * Addresses a callback must not reach unless the operator allows it: loopback, private, link-local,
 * carrier-grade NAT, unspecified and cloud metadata ranges, for IPv4 and IPv6.
 */
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['192.0.0.0', 24],
  ['198.18.0.0', 15],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fd00:ec2::254', 128],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blocked.check(mapped[1]!, 'ipv4');
  return blocked.check(address, 'ipv6');
}

/** A reason the URL cannot be a callback target, or undefined when it can. */
export function callbackUrlProblem(value: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `callbackurl "${value}" is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `callbackurl must be http or https, got ${url.protocol}`;
  if (url.username || url.password) return 'callbackurl must not carry credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && (isPrivateAddress(host) || host === 'localhost' || host.endsWith('.localhost'))) {
    return `callbackurl ${host} is a loopback, private or link-local address (set SNSR_CALLBACK_ALLOW_PRIVATE=true to allow it)`;
  }
  return undefined;
}
