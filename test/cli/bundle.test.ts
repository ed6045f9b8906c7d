import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, startSnsr } from '../helpers/cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'snsr-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// What the bundle leaves to node_modules (scripts/bundle-cli.mjs) must still work from dist/bin/:
// the API reference's assets, pino's transport threads, the files found from the package root.
describe('the bundled binary (dist/bin/snsr.js)', { timeout: 60_000 }, () => {
  it('is what `snsr` and `npm start` run', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string> };
    expect(manifest.bin.snsr).toBe(relative(ROOT, BIN));
    expect(manifest.scripts.start).toBe(`node ${relative(ROOT, BIN)} serve`);
  });

  it('migrates, serves the dashboard, the API reference with its assets, and logs through pino-pretty', async () => {
    const env = { SNSR_DATABASE_URL: join(dir, 'snsr.sqlite'), PORT: '0', HOST: '127.0.0.1', LOG_FORMAT: 'pretty' };
    const { child, output } = await startSnsr(['serve'], env);
    try {
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output())![1]!;
      // pino-pretty's lines, not JSON.
      expect(output()).toMatch(/INFO.*listening on/);
      expect(output()).not.toMatch(/"msg":/);

      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/<script type="module"[^>]* src="\/assets\/index-[\w-]+\.js"/);

      const reference = await fetch(`${url}/docs/`);
      expect(reference.status).toBe(200);
      const html = await reference.text();
      const assets = [...html.matchAll(/(?:src|href)="\.?\/?([\w./-]+\.(?:js|css))"/g)].map((m) => m[1]!);
      expect(assets.length).toBeGreaterThan(0);
      for (const asset of assets) {
        const answer = await fetch(new URL(asset, `${url}/docs/`));
        expect(answer.status, asset).toBe(200);
        expect((await answer.arrayBuffer()).byteLength, asset).toBeGreaterThan(0);
      }
      const openapi = (await (await fetch(`${url}/openapi.json`)).json()) as { openapi: string; paths: object };
      expect(openapi.openapi).toMatch(/^3\./);
      expect(Object.keys(openapi.paths).length).toBeGreaterThan(26);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });
});
