// Section 11's vectors and our own hand-derived ones (test/fixtures/udm/*.json), run under each protocol
// they name: the presented answer, the header, the broken rule, and the bytes encode gives back.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROTOCOLS, decode, encode, present, type FrameHeader, type Protocol } from '../../../src/protocol/udm/index.js';

interface Vector {
  id: string;
  protocol: Protocol | 'both';
  hex: string;
  derivation: string;
  header?: FrameHeader;
  expected: object;
  /** Invalid vectors: text the reason must contain, e.g. 'rule 7'. */
  reason?: string;
  /** false when the frame has bytes the decoder ignores, so encode gives back fewer. */
  canonical?: boolean;
}

function load(file: string): (Vector & { p: Protocol })[] {
  const { vectors } = JSON.parse(readFileSync(new URL(`../../fixtures/udm/${file}`, import.meta.url), 'utf8')) as { vectors: Vector[] };
  return vectors.flatMap((v) => (v.protocol === 'both' ? PROTOCOLS : [v.protocol]).map((p) => ({ ...v, p })));
}

describe.each(['spec-vectors.json', 'extra-vectors.json'])('%s', (file) => {
  const vectors = load(file);

  it.each(vectors.filter((v) => v.reason === undefined))('$id $p $hex decodes as expected', (v) => {
    const result = decode(v.hex, v.p);
    expect(present(result)).toStrictEqual(v.expected);
    if (!result.ok) return;
    expect(result.frame.header).toStrictEqual(v.header);
    const bytes = encode(result.frame, v.p);
    expect(decode(bytes, v.p)).toStrictEqual(result);
    if (v.canonical !== false) expect(Buffer.from(bytes).toString('hex').toUpperCase()).toBe(v.hex.toUpperCase());
  });

  it.each(vectors.filter((v) => v.reason !== undefined))('$id $p $hex is invalid ($reason)', (v) => {
    const result = decode(v.hex, v.p);
    expect(present(result)).toStrictEqual({});
    expect(result).toMatchObject({ ok: false, reason: expect.stringContaining(v.reason as string) });
  });
});

it('the fixture files hold every vector of section 11', () => {
  const ids = new Set(load('spec-vectors.json').map((v) => v.id));
  const section11 = ['V1', 'V2', 'V3', 'V4', 'V5', 'V7', 'V8', 'V10', 'V11', 'V12', 'V13', 'V14', 'V16', 'V17', 'V19', 'V20', 'V21', 'V22', 'V23', 'V25', 'V26'];
  const invalid = ['I1', 'I2', 'I3', 'I4', 'I5', 'I6', 'I7', 'I8', 'I11', 'I13', 'I14', 'I15', 'I17'];
  expect([...ids].sort()).toStrictEqual([...section11, ...invalid].sort());
});
