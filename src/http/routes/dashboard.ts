import { stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../../context.js';
import type { Server } from '../server-types.js';
import { errorBody } from '../error-rendering.js';
import { packagePath } from '../../package-files.js';

/** `vite build` writes here. */
export const DASHBOARD_ROOT = packagePath('web', 'dist') + sep;

/** Paths that belong to the API: never answered with the dashboard, so their 404s stay JSON. */
const API_PATH = /^\/(iot|mcs|security|network|docs|openapi\.json|healthz)(\/|$)/i;
/** A last segment with an extension names a file; a missing file is a 404, not the dashboard. */
const FILE_PATH = /\/[^/]*\.[A-Za-z0-9]+$/;

// Everything the page loads is its own files (no CDN, no inline script or style), so the policy can
// be strict. uPlot and Preact set styles through the CSSOM, which style-src does not restrict.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function sendIndex(reply: FastifyReply) {
  return reply
    .header('cache-control', 'no-cache')
    .header('content-security-policy', CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .sendFile('index.html');
}

/** The built file a URL path names, or undefined (missing, a directory, or outside the root). */
async function builtFile(root: string, path: string): Promise<string | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  const file = resolve(root, `.${decoded}`);
  if (!file.startsWith(root.endsWith(sep) ? root : root + sep)) return undefined;
  const stats = await stat(file).catch(() => undefined);
  return stats?.isFile() ? relative(root, file).split(sep).join('/') : undefined;
}

/**
 * The developer dashboard (web/, built with Vite) at `/`. Built files are served as they are on
 * disk, so a rebuild needs no restart; hashed assets are cached for a year, index.html never.
 * Other GET paths a browser navigates to (Accept: text/html) get index.html, so every dashboard
 * page has a real URL; API paths and file names keep the JSON 404.
 */
export async function dashboardRoutes(app: Server, context: Context, root: string = DASHBOARD_ROOT): Promise<void> {
  if (!existsSync(resolve(root, 'index.html'))) {
    context.log.warn({ root }, 'the dashboard is not built: `npm run build` builds it; the API is served without it');
    app.get('/', { schema: { hide: true } }, async (_request, reply) =>
      reply.code(404).send(errorBody(404, 'the dashboard is not built on this server: run `npm run build`, then restart snsr')),
    );
    return;
  }
  await app.register(fastifyStatic, { root, serve: false, cacheControl: false, index: false, dotfiles: 'ignore' });

  app.get('/*', { schema: { hide: true } }, async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0]!;
    // The original portal's activation emails link to /dashboards/developer.html#?uuid=…: the same page.
    if (path === '/' || path === '/index.html' || path === '/dashboards/developer.html') return sendIndex(reply);
    const file = API_PATH.test(path) ? undefined : await builtFile(root, path);
    if (file) {
      const immutable = file.startsWith('assets/');
      return reply
        .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
        .header('x-content-type-options', 'nosniff')
        .sendFile(file);
    }
    const navigation = request.headers.accept?.includes('text/html') ?? false;
    if (navigation && !API_PATH.test(path) && !FILE_PATH.test(path)) return sendIndex(reply);
    return reply.callNotFound();
  });
}
