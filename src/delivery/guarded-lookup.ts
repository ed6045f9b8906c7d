import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isPrivateAddress } from '../domain/callback-url.js';

/** A send refused because the target is on a loopback, private, link-local or metadata address. */
export class RefusedAddressError extends Error {
  readonly code = 'ESNSRREFUSED';
}

export const refusedMessage = (address: string) => `refused: ${address} is a private address`;

/**
 * A DNS lookup for `http.request` that drops private addresses before the socket connects. The
 * check and the connection use the same resolution, so a name that resolves to a public address
 * when checked and to 127.0.0.1 a moment later (DNS rebinding) cannot slip through.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, options.all ? [] : '', undefined);
      const allowed = allowPrivate ? addresses : addresses.filter((a) => !isPrivateAddress(a.address));
      if (allowed.length === 0) {
        const refused = new RefusedAddressError(refusedMessage(addresses[0]?.address ?? hostname));
        return callback(refused, options.all ? [] : '', undefined);
      }
      if (options.all) return callback(null, allowed);
      return callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}
