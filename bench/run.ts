// `npm run bench [suite…]`: runs the named benchmark suites (all when none are named), one after the
// other so they never compete for the machine's two cores.
const suites: Record<string, () => Promise<{ run: () => Promise<void> }>> = {
  decode: () => import('./decode.js'),
  history: () => import('./history.js'),
  ingest: () => import('./ingest.js'),
  delivery: () => import('./delivery.js'),
  accounts: () => import('./accounts.js'),
  scale: () => import('./scale.js'),
  quiet: () => import('./quiet.js'),
  limits: () => import('./limits.js'),
  'bulk-work': () => import('./bulk-work.js'),
  'module-list': () => import('./module-list.js'),
  stream: () => import('./stream.js'),
  lifecycle: () => import('./lifecycle.js'),
};

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in suites));
if (unknown.length > 0) {
  console.error(`unknown suite(s): ${unknown.join(', ')}; known: ${Object.keys(suites).join(', ')}`);
  process.exit(2);
}
for (const name of wanted.length > 0 ? wanted : Object.keys(suites)) {
  console.log(`\n## ${name}`);
  const suite = await suites[name]!();
  await suite.run();
}
