import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding snsr's package.json. Files that ship beside the code (migrations, the built
 * dashboard) are found from it wherever the running code sits: src/ under the tests, dist/ as tsc
 * writes it, dist/bin/ as bundled for `snsr`.
 */
function packageRoot(from: string): string {
  for (let folder = from; ; folder = dirname(folder)) {
    if (existsSync(join(folder, 'package.json'))) return folder;
    if (dirname(folder) === folder) throw new Error(`snsr's package.json is not above ${from}`);
  }
}

const ROOT = packageRoot(dirname(fileURLToPath(import.meta.url)));

/** A path inside snsr's package folder. */
export const packagePath = (...segments: string[]): string => join(ROOT, ...segments);
