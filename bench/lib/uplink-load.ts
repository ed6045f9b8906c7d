// Sigfox uplink callbacks for the scale bench, every one a new uplink of one of `modules` modules,
// sent from the bench process itself: closed loop (each connection sends its next callback once the
// last is answered: the most the server takes) or open loop (a fixed rate, whatever the answers:
// what a server costs per uplink at a load it keeps up with).
import http from 'node:http';

export interface UplinkTarget {
  port: number;
  token: string;
  modules: number;
  /** The next uplink's number, shared by every load sent to one database so that each is new. */
  counter: { n: number };
}

/** The catalog serial of module `i`, as the uplinks name it. */
export const benchSerial = (i: number): string => (0xc0000000 + i).toString(16).toUpperCase();

/** The `n`-th uplink of the load: modules in turn, each uplink of a module a new sequence number and event frame. */
export function uplinkBody(n: number, modules: number): string {
  const k = Math.floor(n / modules);
  return JSON.stringify({ device: benchSerial(n % modules), time: 1_790_000_000 + n, data: `${(k & 0x7f).toString(16).padStart(2, '0')}000046`, seqNumber: k % 4096, station: '1A2B', rssi: -120 });
}

/** Sends one uplink; resolves with its status (0 when the connection failed) and latency. */
function post(target: UplinkTarget, agent: http.Agent): Promise<{ status: number; ms: number }> {
  const sent = performance.now();
  const headers = { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' };
  return new Promise((resolve) => {
    const request = http.request({ host: '127.0.0.1', port: target.port, path: '/network/sigfox/uplink', method: 'POST', agent, headers }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, ms: performance.now() - sent }));
    });
    request.on('error', () => resolve({ status: 0, ms: performance.now() - sent }));
    request.end(uplinkBody(target.counter.n++, target.modules));
  });
}

/** `connections` at a time for `seconds`: how many uplinks were acknowledged with 200. */
export async function closedLoop(target: UplinkTarget, connections: number, seconds: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const deadline = performance.now() + seconds * 1000;
  let acknowledged = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) if ((await post(target, agent)).status === 200) acknowledged++;
    }),
  );
  agent.destroy();
  return acknowledged;
}

export interface OpenLoopResult {
  sent: number;
  acknowledged: number;
  /** Acknowledgement latencies of the 200s, sorted. */
  latenciesMs: number[];
}

/** `rate` uplinks a second for `seconds`, sent on schedule whatever the answers (up to 1,024 open at once). */
export async function openLoop(target: UplinkTarget, rate: number, seconds: number): Promise<OpenLoopResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
  const total = Math.round(rate * seconds);
  const answers: Promise<{ status: number; ms: number }>[] = [];
  const start = performance.now();
  await new Promise<void>((done) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate));
      while (answers.length < due) answers.push(post(target, agent));
      if (answers.length >= total) done();
      else setTimeout(tick, 2);
    };
    tick();
  });
  const settled = await Promise.all(answers);
  agent.destroy();
  const latenciesMs = settled.filter((a) => a.status === 200).map((a) => a.ms).sort((a, b) => a - b);
  return { sent: total, acknowledged: latenciesMs.length, latenciesMs };
}
