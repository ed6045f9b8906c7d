import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startSnsr } from '../helpers/cli.js';

// The README's walk-throughs, pasted in order into one shell on a fresh server: every fenced block
// marked `sh runnable` runs, as the README's top says. Sections others add join by marking theirs.

const README = readFileSync(join(process.cwd(), 'README.md'), 'utf8');
const runnable = [...README.matchAll(/^```sh runnable\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);

/**
 * `npx snsr` is the built binary; curl fails on an HTTP error (the README's calls must all succeed);
 * the README's `localhost:8080` is the test server's port.
 */
const PRELUDE = `set -euo pipefail
snsr() { node "$SNSR_BIN" "$@"; }
npx() { if [ "$1" = snsr ]; then shift; snsr "$@"; else command npx "$@"; fi; }
curl() { command curl --silent --show-error --fail-with-body "$@"; }
`;

function bash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd, env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ code, output }));
  });
}

// The walk-throughs run a few dozen snsr commands in order: on a loaded 2-core machine that took
// more than three minutes once, so the bound is generous (it only limits a hung command).
describe('the README', { timeout: 420_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'snsr-readme-'));
  const env = { SNSR_DATABASE_URL: join(dir, 'data', 'snsr.sqlite'), SNSR_NETWORK_TOKEN: 'readme-network-token', SNSR_BIN: BIN, LOG_LEVEL: 'warn' };
  let stop: () => Promise<void> = async () => {};
  let port = '';

  beforeAll(async () => {
    const { child, output } = await startSnsr(['serve'], { ...env, LOG_LEVEL: 'info', PORT: '0', HOST: '127.0.0.1' });
    port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output())![1]!;
    stop = async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    };
  }, 90_000);
  afterAll(async () => {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('links only to files that are in the repository', () => {
    const links = [...README.matchAll(/\]\(([^)#\s]+)[^)]*\)/g)].map((match) => match[1]!).filter((target) => !/^[a-z]+:/i.test(target));
    expect(links.length).toBeGreaterThan(0);
    expect(links.filter((target) => !existsSync(join(process.cwd(), target)))).toEqual([]);
  });

  it('names only repository files and folders that exist (`src/…`, `docs/…`, `.env.example`; built `web/dist` aside)', () => {
    const named = [...README.matchAll(/`((?:src|test|bench|docs|scripts|migrations|web|\.ci)\/[^`\s]*|\.env\.example)`/g)].map((match) => match[1]!);
    const paths = named.filter((path) => !path.startsWith('web/dist'));
    expect(paths.length).toBeGreaterThan(10);
    expect(paths.filter((path) => !existsSync(join(process.cwd(), path)))).toEqual([]);
  });

  it('has walk-throughs marked runnable, and they run top to bottom on a fresh server', async () => {
    expect(runnable.length).toBeGreaterThanOrEqual(3);
    const script = PRELUDE + runnable.map((block, i) => `echo "--- runnable block ${i + 1}"\n${block.replaceAll('localhost:8080', `127.0.0.1:${port}`)}`).join('\n');
    const result = await bash(script, dir, env);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain(`--- runnable block ${runnable.length}`);
  });
});
