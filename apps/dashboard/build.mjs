// Builds the dashboard (React + Vite) into dist/dashboard/, served by the API at /dashboard. Type-checks
// first with the dashboard's own tsconfig (DOM types), and fails when its JavaScript outgrows the
// gzipped budget (issue 20: 250 KB). Run by `npm run build` (postbuild).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';

const JS_BUDGET_BYTES = 250 * 1024;
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const out = join(root, 'dist', 'dashboard');

try {
  execFileSync(join(root, 'node_modules', '.bin', 'tsc'), ['-p', join(here, 'tsconfig.json')], { stdio: 'inherit' });
} catch {
  console.error('The dashboard (apps/dashboard) does not type-check; see the errors above.');
  process.exit(1);
}

await build({
  root: here,
  base: '/dashboard/',
  configFile: false,
  logLevel: 'warn',
  // The dashboard's API client is the Node SDK's route table (generated from the OpenAPI document) bound to fetch.
  resolve: { alias: { '@foresight/api-routes': join(root, 'libs', 'sdk-node', 'src', 'routes.ts') } },
  // No inline script anywhere (the CSP forbids it): no module-preload polyfill, assets as files.
  build: {
    outDir: out,
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: 'es2022',
    sourcemap: false,
    rollupOptions: {
      // React Query marks its modules "use client" for server-component bundlers; meaningless in a browser bundle.
      onwarn: (warning, warn) => (warning.code === 'MODULE_LEVEL_DIRECTIVE' ? undefined : warn(warning)),
    },
  },
});

const assets = join(out, 'assets');
const gzipped = readdirSync(assets)
  .filter((file) => file.endsWith('.js'))
  .reduce((sum, file) => sum + gzipSync(readFileSync(join(assets, file)), { level: 9 }).length, 0);
if (gzipped > JS_BUDGET_BYTES) {
  console.error(`The dashboard's JavaScript is ${gzipped} bytes gzipped, over its budget of ${JS_BUDGET_BYTES}.`);
  process.exit(1);
}
console.log(`dashboard: dist/dashboard JavaScript ${gzipped} bytes gzipped (budget ${JS_BUDGET_BYTES})`);
