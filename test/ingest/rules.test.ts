import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decode } from '../../src/protocol/udm/index.js';
import type { Frame, Protocol } from '../../src/protocol/udm/index.js';
import { lostBetween, lostBetweenSeq } from '../../src/ingest/steps/update-module.js';
import { decodeFrame } from '../../src/ingest/steps/decode-frame.js';
import { repeats } from '../../src/ingest/steps/detect-repetition.js';
import { concernedEntry } from '../../src/ingest/steps/resolve-device.js';
import { contribution } from '../../src/ingest/steps/apply-state.js';
import { deviceContext } from '../../src/ingest/device-context.js';
import type { IngestModule } from '../../src/ingest/ingest-store.js';
import type { DeviceRow } from '../../src/storage/schema.js';
import { statusUpdate } from '../../src/protocol/udm/index.js';

const frame = (hex: string, protocol: Protocol = 'UDM23'): Frame => {
  const result = decode(hex, protocol);
  if (!result.ok) throw new Error(`${hex}: ${result.reason}`);
  return result.frame;
};

const DEVICE: DeviceRow = {
  id: 7, module_serial: 'C0FE', idx: 0, serial: 'C0FE', uid: 'X', category: 'Y', active: 1, watched: 0, alerts: 2, alerts_ack: 1,
  losts: 3, msgs: 9, firstseen: 1_700_000_000_000, lastseen: null, battery: 'ON', level: 'UNKNOWN', network: 'OFF', tamper: 'UNKNOWN',
  temp: 'LOW', status: 'UNDEFINED', type: 'OTHER', bidirval: null, period_s: null, name: null, notes: null, tags: '', lost_contact: 0,
};
const module = (protocol: Protocol): IngestModule => ({ serial: 'C0FE', protocol, lastCpt: null, lastSeq: null, lastTimeS: null, lastWhenMs: null, device: DEVICE, callbacks: false, accountId: 1 });

describe('lost uplinks from the Sigfox sequence number', () => {
  it('counts the numbers skipped, none across the wrap from 4095 to 0, none after a reset', () => {
    expect(lostBetweenSeq(null, 5)).toBe(0);
    expect(lostBetweenSeq(4, 5)).toBe(0);
    expect(lostBetweenSeq(4, 9)).toBe(4);
    expect(lostBetweenSeq(4095, 0)).toBe(0);
    expect(lostBetweenSeq(4093, 1)).toBe(3);
    expect(lostBetweenSeq(1500, 0)).toBe(0);
    expect(lostBetweenSeq(1500, 3)).toBe(0);
    expect(lostBetweenSeq(7, 7)).toBe(0);
  });
});

describe('lost uplinks from the 4-bit counter', () => {
  it('counts the counters skipped between two, across the wrap', () => {
    expect(lostBetween(4, 5)).toBe(0);
    expect(lostBetween(4, 7)).toBe(2);
    expect(lostBetween(14, 1)).toBe(2);
    expect(lostBetween(15, 0)).toBe(0);
    expect(lostBetween(3, 3)).toBe(15);
    expect(lostBetween(null, 9)).toBe(0);
  });

  it('adds up to the emissions missed over any sequence of fewer than 16 consecutive losses', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 15 }), fc.array(fc.integer({ min: 0, max: 15 }), { maxLength: 50 }), (start, gaps) => {
        let cpt = start;
        let counted = 0;
        for (const gap of gaps) {
          const next = (cpt + gap + 1) % 16;
          counted += lostBetween(cpt, next);
          cpt = next;
        }
        expect(counted).toBe(gaps.reduce((a, b) => a + b, 0));
      }),
    );
  });
});

describe('decoding with the module protocol', () => {
  it('decodes with the catalog protocol and says why an invalid frame is invalid', () => {
    expect(decodeFrame(module('UDM22'), '000000')).toMatchObject({ ok: true, protocol: 'UDM22', frame: { code: 'event_battery_low' } });
    expect(decodeFrame(module('UDM23'), '000020')).toEqual({ ok: false, reason: expect.stringMatching(/event code 0x20 is not defined/) });
  });

  it("switches to the protocol a module's own REGISTER announces", () => {
    expect(decodeFrame(module('UDM23'), '00022200010000C0DE')).toMatchObject({ ok: true, protocol: 'UDM22', switchTo: 'UDM22', frame: { code: 'register' } });
    expect(decodeFrame(module('UDM22'), '000223010200050000C0DE')).toMatchObject({ ok: true, protocol: 'UDM23', switchTo: 'UDM23' });
  });

  it("reads a child's REGISTER of the other protocol without switching the module", () => {
    const result = decodeFrame(module('UDM22'), '001223010200050001ABCD');
    expect(result).toMatchObject({ ok: true, protocol: 'UDM23', frame: { header: { entryId: 1 } } });
    expect(result).not.toHaveProperty('switchTo');
  });

  it('does not try the other protocol for frames other than REGISTER', () => {
    // a UDM23 keep-alive is an invalid UDM22 one: it stays invalid
    expect(decodeFrame(module('UDM22'), '020300189167')).toMatchObject({ ok: false });
    expect(decodeFrame(module('UDM23'), '0002')).toMatchObject({ ok: false });
  });
});

describe('repetitions', () => {
  const original = { entry_id: 0, frame_type: 'srv_frm_event', stamp: 2, frame: '25000632' };

  it('matches the same entry, type, stamp and payload whatever the counter and retry bit', () => {
    expect(repeats(frame('A6000632'), 'a6000632', original)).toBe(true);
    expect(repeats(frame('AF000632'), 'AF000632', original)).toBe(true);
  });

  it.each([
    ['another stamp', 'B6000632'],
    ['another payload', 'A6000634'],
    ['another entry', 'A6100632'],
    ['another event', 'A6000732'],
  ])('does not match %s', (_name, hex) => {
    expect(repeats(frame(hex), hex, original)).toBe(false);
  });
});

describe('the device a frame concerns', () => {
  const concern = (hex: string) => concernedEntry(frame(hex), statusUpdate(frame(hex)));

  it('is the entry of the header, with its status change', () => {
    expect(concern('25000632')).toEqual({ entry: 0, applies: true });
    expect(concern('020300189167')).toEqual({ entry: 0, applies: true });
    expect(concern('021300189167')).toEqual({ entry: 1, applies: true });
    expect(concern('001223010200050001ABCD')).toEqual({ entry: 1, applies: false });
  });

  it("is the child a gateway's connection or RSSI event names", () => {
    expect(concern('47000202')).toEqual({ entry: 2, applies: true });
    expect(concern('50000504')).toEqual({ entry: 4, applies: true });
    expect(concern('4700020F')).toEqual({ entry: 15, applies: true });
  });

  it('stays the gateway, without effect, when the named child cannot exist', () => {
    expect(concern('47000210')).toEqual({ entry: 0, applies: false });
    expect(concern('47000200')).toEqual({ entry: 0, applies: true });
  });
});

describe('what a frame contributes', () => {
  it('is its section 10 field, or the uid and category of a REGISTER', () => {
    const f = frame('25000632');
    expect(contribution(f, { device: DEVICE, update: statusUpdate(f) })).toEqual({ temp: 'LOW' });
    const reg = frame('001223010200050001ABCD');
    expect(contribution(reg, { device: DEVICE })).toEqual({ uid: '0001ABCD', category: '5' });
    expect(contribution(frame('0004DEADBEEF'), { device: DEVICE })).toEqual({});
  });
});

describe('a message ctxt', () => {
  it('holds the device fields as the device object shows them, id, serial and index included, without uid and category', () => {
    const ctxt = deviceContext(DEVICE, (ms) => `date ${ms}`);
    expect(ctxt).toEqual({
      id: '7', serial: 'C0FE', index: 0, active: true, watched: false, alerts: 2, alerts_ack: 1, losts: 3, msgs: 9, firstseen: 'date 1700000000000',
      battery: 'ON', level: 'UNKNOWN', network: 'OFF', tamper: 'UNKNOWN', temp: 'LOW', status: 'UNDEFINED', type: 'OTHER',
    });
  });
});
