import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { progressBar } from '../../src/cli/progress-bar.js';
import { BIN, snsr } from '../helpers/cli.js';

/** util-linux `script` runs a command on a pseudo-terminal, as a person at a terminal would. */
const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

function stream(isTTY: boolean) {
  const out = Object.assign(new PassThrough(), { isTTY, columns: 80, cursorTo: () => true, clearLine: () => true, moveCursor: () => true });
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { out: out as unknown as NodeJS.WriteStream, text: () => text };
}

describe('progressBar', () => {
  it('draws on a terminal', () => {
    const { out, text } = stream(true);
    const bar = progressBar('importing', out);
    bar.update(0, 400);
    bar.update(400, 400);
    bar.stop();
    expect(text()).toMatch(/importing \[[█░]+\] 100% \| 400\/400/);
  });

  it('writes nothing when the output is not a terminal', () => {
    const { out, text } = stream(false);
    const bar = progressBar('importing', out);
    bar.update(10, 20);
    bar.stop();
    expect(text()).toBe('');
  });
});

describe.runIf(hasScript)('snsr catalog import (the real binary)', { timeout: 90_000 }, () => {
  it('draws a progress bar on a terminal, and none when its output is piped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'snsr-progress-'));
    try {
      const lines = Array.from({ length: 1000 }, (_, i) => `F${i.toString(16).toUpperCase().padStart(7, '0')};1A2B3C4D;0123456789ABCDEF`);
      writeFileSync(join(dir, 'catalog.csv'), `SERIAL;KEY;PAC\n${lines.join('\n')}\n`);
      const env = { ...process.env, SNSR_DATABASE_URL: join(dir, 'tty.sqlite'), LOG_LEVEL: 'warn' };
      const command = `'${process.execPath}' '${BIN}' catalog import '${join(dir, 'catalog.csv')}'`;
      const terminal = execFileSync('script', ['-qec', command, '/dev/null'], { env, encoding: 'utf8' });
      expect(terminal).toMatch(/importing \[[█░]+\] 100% \| 1000\/1000/);
      expect(terminal).toContain('imported 1000 modules');
      const piped = await snsr(['catalog', 'import', join(dir, 'catalog.csv')], { SNSR_DATABASE_URL: join(dir, 'piped.sqlite') });
      expect(piped.code).toBe(0);
      expect(piped.stdout + piped.stderr).not.toContain('importing');
      expect(piped.stdout + piped.stderr).not.toContain(`${String.fromCharCode(27)}[`);
      expect(piped.stdout).toContain('imported 1000 modules');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
