import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { addressProblem } from '../domain/callback-url.js';

/** A send refused because the target is not a global unicast address. */
export class RefusedAddressError extends Error {
  readonly code = 'ESNSRREFUSED';
}

/** The delivery log's words for a refused target, or undefined when the address may be reached. */
export function refusedMessage(address: string): string | undefined {
  const problem = addressProblem(address);
  return problem === undefined ? undefined : `refused: ${address} is not a public address (${problem})`;
}

/**
 * A DNS lookup for `http.request` that drops every address but global unicast before the socket
 * connects. The socket connects only to the addresses checked here (the lookup's answer is the
 * connection's), so a name that resolves to a public address when checked and to 127.0.0.1 a
 * moment later (DNS rebinding) cannot slip through.
 */
export function guardedLookup(allowPrivate: boolean, resolve: typeof dnsLookup = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, options.all ? [] : '', undefined);
      const allowed = allowPrivate ? addresses : addresses.filter((a) => addressProblem(a.address) === undefined);
      if (allowed.length === 0) {
        const first = addresses[0]?.address;
        const refused = new RefusedAddressError((first && refusedMessage(first)) ?? `refused: ${hostname} has no address`);
        return callback(refused, options.all ? [] : '', undefined);
      }
      if (options.all) return callback(null, allowed);
      return callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}
