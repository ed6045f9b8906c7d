// A build step (`npm run build`, after tsc): bundles the CLI that tsc wrote (dist/cli/main.js) into
// dist/bin/, the file `snsr` and `npm start` run. Unbundled, every start resolves and evaluates about
// 1,800 modules (TypeBox and Kysely alone are 600): a second before `snsr serve` reaches its database,
// half of one for a one-line command. Bundled, the same work loads in a third of that. Each command's
// code stays in its own chunk (`splitting`), loaded only when that command runs.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

const OUT = 'dist/bin';

// Left to Node's own resolution, each for a reason a bundle cannot keep:
const external = [
  // a native addon, loaded from its own folder;
  'better-sqlite3',
  // node-postgres's optional native binding, required only when installed;
  'pg-native',
  // logging transports run in worker threads started from pino's own files;
  'pino',
  'pino-pretty',
  // these read files beside their code (the API reference's assets, their own package.json).
  '@fastify/swagger',
  '@fastify/swagger-ui',
  'ioredis',
];

rmSync(OUT, { recursive: true, force: true });
await build({
  entryPoints: { snsr: 'dist/cli/main.js' },
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  // The bundled CommonJS packages require Node's built-in modules: give ES modules a `require`.
  banner: { js: "import { createRequire as snsrCreateRequire } from 'node:module'; const require = snsrCreateRequire(import.meta.url);" },
  // Maps back to src/ through tsc's maps (`node --enable-source-maps` shows TypeScript lines).
  sourcemap: true,
  logLevel: 'warning',
});
