// `npm run demo`: a server on a fresh SQLite file with a demo account, catalog and registered
// modules, fed live by the simulator, so a newcomer sees data arrive within seconds.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../config.js';
import { createContext } from '../context.js';
import { buildServer } from '../http/server.js';
import { catalogCsv, parseModules } from '../simulator/fleet.js';
import { formatSummary, progressPrinter } from '../simulator/report.js';
import { Simulation } from '../simulator/simulation.js';

const EMAIL = 'demo@example.com';
const PASSWORD = 'Demo1234';
/** Two gateways (C0FE with one child, F00D with two), plain modules, both protocols. */
const MODULES = 'C0FE,BEEF:UDM22,0ACE,F00D,CAFE:UDM22';
const RATE = 2;

export async function runDemo(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const path = resolve(env.SNSR_DEMO_DATABASE ?? './data/demo.sqlite');
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
  const networkToken = randomBytes(12).toString('hex');
  const config = loadConfig({ ...env, SNSR_DATABASE_URL: `sqlite:${path}`, SNSR_NETWORK_TOKEN: networkToken, LOG_LEVEL: env.LOG_LEVEL ?? 'warn' });
  const context = await createContext(config, { log: pino({ level: config.logLevel }, pino.destination(2)), backgroundCheckpoints: true });

  const modules = parseModules(MODULES);
  const catalog = catalogCsv(modules);
  await context.catalog.import(catalog);
  const { account, token } = await context.accounts.create(EMAIL, PASSWORD);
  const keys = catalog
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split(';'))
    .map(([serial = '', key = '']) => ({ serial, key }));
  await context.modules.register(account.id, keys);
  const app = await context.apps.save(account.id, { name: 'Demo app', description: 'the simulated modules' });
  await context.apps.attach(account.id, app.id, modules.map((m) => m.serial));

  const server = await buildServer(context);
  await server.listen({ port: config.port, host: config.host });
  const base = `http://localhost:${config.port}`;
  const [first] = keys;
  console.log(
    [
      `snsr demo on ${base} (SQLite: ${path})`,
      '',
      `  dashboard       ${base}/   log in as ${EMAIL} / ${PASSWORD}`,
      `  API reference   ${base}/docs`,
      `  account token   ${token}   (Authorization: Basic <token>)`,
      `  modules         ${modules.map((m, i) => `${m.serial} key ${keys[i].key} ${m.protocol}${m.children ? `, gateway of ${m.children}` : ''}`).join('\n                  ')}`,
      `  network token   ${networkToken}   (POST /network/sigfox/uplink)`,
      '',
      'Try, in another terminal:',
      `  curl -s -u ${EMAIL}:${PASSWORD} ${base}/iot/developers/modules.json`,
      `  TOKEN=$(curl -s "${base}/iot/devices/crc.json?sn=${first.serial}&key=${first.key}")`,
      `  curl -s -H "X-Snsr-Device-Key: $TOKEN" "${base}/iot/devices/msgs/history.json?amount=5"`,
      `  curl -s -H "X-Snsr-Device-Key: $TOKEN" ${base}/iot/devices/children.json`,
      `  npx snsr simulate --url ${base} --token ${networkToken} --modules ${MODULES} --rate 50 --duration 10`,
      '',
      `Feeding ${RATE} uplinks/s from ${modules.length} simulated modules; Ctrl-C stops.`,
    ].join('\n'),
  );

  const simulation = new Simulation({
    url: `http://127.0.0.1:${config.port}`,
    token: networkToken,
    modules,
    rate: RATE,
    onProgress: progressPrinter(),
  });
  const stop = () => simulation.stop();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const summary = await simulation.run();
  if (process.stderr.isTTY) process.stderr.write('\n');
  process.stdout.write(formatSummary(summary));
  await server.close();
  await context.close();
}
