import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { progressBar } from '../../src/cli/progress-bar.js';

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
