import { describe, expect, it } from 'vitest';
import { outcomePayloads, parseOutcomes } from '../../src/delivery/delivery-outcomes.js';
import { MAX_PAYLOAD_BYTES } from '../../src/storage/notifications.js';

describe('delivery outcome announcements', () => {
  it('carry the time and the ids, split under the notification limit, and read back', () => {
    expect(outcomePayloads(1_700_000_000_000, [7, 8])).toEqual(['1700000000000 7 8']);
    expect(outcomePayloads(1, [])).toEqual([]);
    const ids = Array.from({ length: 3000 }, (_, i) => 1_000_000_000 + i);
    const payloads = outcomePayloads(1_700_000_000_000, ids);
    expect(payloads.length).toBeGreaterThan(1);
    for (const payload of payloads) expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    const read = payloads.map(parseOutcomes);
    expect(read.every((r) => r.at === 1_700_000_000_000)).toBe(true);
    expect(read.flatMap((r) => r.ids)).toEqual(ids);
  });

  it('read nothing from a payload that is not one', () => {
    expect(parseOutcomes('').ids).toEqual([]);
    expect(parseOutcomes('abc 1 2').ids).toEqual([]);
    expect(parseOutcomes('1700000000000 1 x').ids).toEqual([]);
  });
});
