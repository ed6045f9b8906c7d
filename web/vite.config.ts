import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The API the dashboard calls in development (`npm run dev:web` while `npm start` runs).
const api = process.env.SNSR_API_URL ?? 'http://127.0.0.1:8080';
const proxied = ['/iot', '/security', '/network', '/healthz', '/docs', '/openapi.json'];

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  // Preact's automatic JSX runtime, without a plugin.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Small enough to inline nothing: every asset is a file, so the server's CSP needs no 'unsafe-inline'.
    assetsInlineLimit: 0,
    reportCompressedSize: true,
  },
  server: {
    proxy: Object.fromEntries(
      proxied.map((path) => [
        path,
        {
          target: api,
          changeOrigin: true,
          // snsr accepts the session cookie only from its own origin: the page's (localhost:5173)
          // becomes the API's, as if the dashboard were served by snsr itself.
          configure: (proxy: { on(event: 'proxyReq', listener: (request: { getHeader(name: string): unknown; setHeader(name: string, value: string): void }) => void): void }) =>
            proxy.on('proxyReq', (request) => {
              if (request.getHeader('origin') !== undefined) request.setHeader('origin', new URL(api).origin);
            }),
        },
      ]),
    ),
  },
});
