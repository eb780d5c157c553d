import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { pageHeaders } from '../http/page-headers';

/** Where `npm run build` puts the dashboard (apps/dashboard/build.mjs): dist/dashboard, beside dist/apps. */
const DASHBOARD_BUILD_DIR = join(__dirname, '..', '..', '..', '..', 'dashboard');
const ASSETS_DIR = join(DASHBOARD_BUILD_DIR, 'assets');

/**
 * Everything the dashboard loads comes from this origin and it talks only to this origin's /v1 API:
 * no inline script, no third-party origin, not framed.
 */
const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = pageHeaders(DASHBOARD_CSP);

/**
 * The dashboard's static files at /dashboard/, outside /v1 and without a token (they hold no
 * organization data). Assets carry a content hash in their names and are cached for good; the page
 * itself is revalidated. `GET /` sends a person there. Nothing is served when the dashboard was not built.
 */
export function serveDashboard(fastify: FastifyInstance): boolean {
  if (!existsSync(join(DASHBOARD_BUILD_DIR, 'index.html'))) return false;
  // Queued, not awaited: awaiting would load the routes registered so far before Nest installs its
  // error handler (at listen), and their errors would get Fastify's default 500 body.
  void fastify.register(fastifyStatic, {
    root: DASHBOARD_BUILD_DIR,
    prefix: '/dashboard/',
    index: ['index.html'],
    cacheControl: false,
    setHeaders: (reply, path) => {
      void reply.headers({ ...SECURITY_HEADERS, 'cache-control': path.startsWith(ASSETS_DIR) ? 'public, max-age=31536000, immutable' : 'no-cache' });
    },
  });
  // Relative asset URLs and the hash routes need the trailing slash.
  fastify.get('/dashboard', (_request, reply) => reply.redirect('/dashboard/', 301));
  // A person typing the deployment's address lands on the dashboard; 302, so the root stays free for later use.
  fastify.get('/', (_request, reply) => reply.redirect('/dashboard/', 302));
  return true;
}
