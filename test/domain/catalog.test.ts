import { describe, expect, it } from 'vitest';
import { parseCatalog } from '../../src/domain/catalog.js';
import { DomainError } from '../../src/domain/errors.js';

function problems(text: string): string {
  try {
    parseCatalog(text);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return (error as DomainError).message;
  }
  throw new Error('expected the catalog to be rejected');
}

describe('parseCatalog', () => {
  it('reads SERIAL;KEY;PAC[;PROTOCOL] with a header, upper-casing and skipping blank lines', () => {
    expect(parseCatalog('serial;key;pac;protocol\nc0fe;1a2b3c4d;0123456789abcdef;udm22\n\nBEEF; DEADBEEF ;FEDCBA9876543210\n')).toEqual([
      { serial: 'C0FE', key: '1A2B3C4D', pac: '0123456789ABCDEF', protocol: 'UDM22' },
      { serial: 'BEEF', key: 'DEADBEEF', pac: 'FEDCBA9876543210' },
    ]);
    expect(parseCatalog('\uFEFFSERIAL;KEY;PAC\r\nC0FE;1A2B3C4D;0123456789ABCDEF\r\n')).toHaveLength(1);
  });

  it('rejects the whole file, naming every bad line and why', () => {
    const message = problems(
      'SERIAL;KEY;PAC\nC0FE;1A2B3C4D;0123456789ABCDEF\nXYZ;1A2B3C4D;0123456789ABCDEF\nBEEF;123;0123456789ABCDEF\nBEEF;DEADBEEF;0123\nC0FE;1A2B3C4D;0123456789ABCDEF;UDM99\nC0FE;1A2B3C4D;0123456789ABCDEF\nA;B\n',
    );
    expect(message.split('\n')).toEqual([
      'line 3: serial "XYZ" must be 1 to 8 hex digits',
      'line 4: key "123" must be 8 hex digits',
      'line 5: PAC "0123" must be 16 hex digits',
      'line 6: protocol "UDM99" must be UDM22 or UDM23',
      'line 7: serial C0FE already appears on line 2',
      'line 8: expected 3 or 4 fields separated by ";", found 2',
    ]);
  });

  it('requires the header line', () => {
    expect(problems('C0FE;1A2B3C4D;0123456789ABCDEF\n')).toMatch(/line 1: the header/);
    expect(problems('')).toMatch(/line 1/);
  });
});
