import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Load shedding answers 503 when the event loop lags past 500 ms, which a machine busy with other
 * test files does; tests that are not about shedding turn it off (its own tests turn it back on).
 */
export const NO_SHEDDING = { SNSR_MAX_EVENT_LOOP_DELAY_MS: '0' } as const;

/** The built (bundled) binary, as `npx snsr` runs it (the test script builds before testing). */
export const BIN = fileURLToPath(new URL('../../dist/bin/snsr.js', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function snsr(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env: { ...process.env, LOG_LEVEL: 'warn', ...NO_SHEDDING, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Starts `snsr <args>` in the background and resolves once its log says `ready` (by default: listening). */
export function startSnsr(args: string[], env: Record<string, string>, ready = 'listening on'): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, LOG_LEVEL: 'info', ...NO_SHEDDING, ...env } });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`snsr did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(ready)) {
        clearTimeout(timer);
        resolve({ child, output: () => output });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`snsr exited with ${code}:\n${output}`));
    });
  });
}
