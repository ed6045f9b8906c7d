import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../helpers/database.js';
import { importCatalog, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';

const T = 1_700_000_000;
const UPLINKS = 120;
/** Every fifth uplink is delivered late: its network time is over a minute before the ones around it. */
const networkTime = (n: number) => T + n * 10 - (n % 5 === 4 ? 65 : 0);
const keepAlive = (n: number) => `0${(n % 16).toString(16).toUpperCase()}0300189167`;

interface Message {
  when: number;
  extra: { time: number };
}

describe.each(dialects)('polling recents while late uplinks arrive (%s)', (dialect) => {
  let app: TestApp;
  let token: string;
  beforeAll(async () => {
    app = await startApp(dialect);
    await importCatalog(app);
    token = (await app.server.inject({ method: 'GET', url: '/iot/devices/crc.json?sn=C0FE&key=1A2B3C4D' })).body;
  });
  afterAll(() => app.close());

  const send = (n: number) =>
    app.server.inject({
      method: 'POST',
      url: '/network/sigfox/uplink',
      headers: { authorization: 'Bearer network-token' },
      payload: { device: 'C0FE', time: networkTime(n), data: keepAlive(n), seqNumber: n, station: '1A2B', rssi: -120 },
    });
  const get = async (url: string) => {
    const response = await app.server.inject({ method: 'GET', url, headers: { 'x-snsr-device-key': token } });
    expect(response.statusCode).toBe(200);
    return response.json() as Message[];
  };

  it('shows every message exactly once to a poller that asks after the newest when it saw', async () => {
    const seen: Message[] = [];
    let after: number | undefined;
    const poll = async () => {
      const page = await get(`/iot/devices/msgs/recents.json?amount=1000${after === undefined ? '' : `&after=${after}`}`);
      // Newest first, as clients insert each item on top.
      for (let i = 1; i < page.length; i++) expect(page[i - 1].when).toBeGreaterThan(page[i].when);
      seen.push(...page);
      if (page.length > 0) after = page[0].when;
    };
    // Uplinks go in in small concurrent bursts, the poller reading between and during them.
    for (let start = 0; start < UPLINKS; start += 6) {
      const burst = Array.from({ length: Math.min(6, UPLINKS - start) }, (_, k) => send(start + k));
      await Promise.all([...burst, poll()]);
      for (const response of await Promise.all(burst)) expect(response.json()).toMatchObject({ uplink: "new", frame: "message" });
    }
    await poll();
    const times = seen.map((m) => m.extra.time);
    expect(new Set(times).size).toBe(times.length);
    expect(times.sort((a, b) => a - b)).toEqual(Array.from({ length: UPLINKS }, (_, n) => networkTime(n)).sort((a, b) => a - b));
  });

  it('says in the OpenAPI document what when and extra.time are', async () => {
    const spec = (await app.server.inject({ method: 'GET', url: '/openapi.json' })).json();
    const schema = spec.paths['/iot/devices/msgs/recents.json'].get.responses['200'].content['application/json'].schema.items;
    expect(schema.properties.when.description).toMatch(/snsr received the uplink.*strictly increasing per module/);
    expect(schema.properties.extra.properties.time.description).toMatch(/network’s time/);
  });

  it('pages history back with until without repeating or skipping a message', async () => {
    const pages: Message[] = [];
    let until: number | undefined;
    for (;;) {
      const page = await get(`/iot/devices/msgs/history.json?amount=7${until === undefined ? '' : `&until=${until}`}`);
      if (page.length === 0) break;
      pages.push(...page);
      until = page[page.length - 1].when;
    }
    expect(pages).toHaveLength(UPLINKS);
    for (let i = 1; i < pages.length; i++) expect(pages[i - 1].when).toBeGreaterThan(pages[i].when);
    expect(new Set(pages.map((m) => m.extra.time)).size).toBe(UPLINKS);
  });
});
