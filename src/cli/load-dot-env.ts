import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Reads `.env` from the working directory when there is one, with Node's own parser. Variables
 * already in the environment win, so `PORT=9000 npx snsr serve` overrides the file.
 */
export function loadDotEnv(path = resolve('.env')): string | undefined {
  if (!existsSync(path)) return undefined;
  process.loadEnvFile(path);
  return path;
}
