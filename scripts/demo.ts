// `npm run demo`: see src/cli/demo.ts. Runs from source with tsx, so it works right after `npm ci`.
import { runDemo } from '../src/cli/demo.js';

try {
  await runDemo();
} catch (error) {
  const { code, message } = error as NodeJS.ErrnoException;
  console.error(code === 'EADDRINUSE' ? `snsr demo: port ${process.env.PORT ?? 8080} is in use; run with PORT=<another port>` : `snsr demo: ${message}`);
  process.exit(1);
}
