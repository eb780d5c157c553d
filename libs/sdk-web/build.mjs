// Builds the web SDK into dist/sdk/: foresight.mjs (ES module, for bundlers), foresight.js (one
// minified file exposing the global `Foresight`, served by the API at /sdk/foresight.js) and the
// example page. Type-checks first, with the SDK's own tsconfig (DOM types), and fails when the
// browser bundle outgrows its gzipped size budget. Run by `npm run build` (postbuild).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const SIZE_BUDGET_BYTES = 8 * 1024;
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const out = join(root, 'dist', 'sdk');

try {
  execFileSync(join(root, 'node_modules', '.bin', 'tsc'), ['-p', join(here, 'tsconfig.json')], { stdio: 'inherit' });
} catch {
  console.error('The web SDK (libs/sdk-web) does not type-check; see the errors above.');
  process.exit(1);
}

const common = {
  entryPoints: [join(here, 'src', 'index.ts')],
  bundle: true,
  minify: true,
  target: 'es2020',
  legalComments: 'none',
  logLevel: 'warning',
};
await Promise.all([
  build({ ...common, format: 'esm', outfile: join(out, 'foresight.mjs') }),
  build({ ...common, format: 'iife', globalName: 'Foresight', outfile: join(out, 'foresight.js') }),
]);
mkdirSync(out, { recursive: true });
copyFileSync(join(here, 'example', 'example.html'), join(out, 'example.html'));

const gzipped = gzipSync(readFileSync(join(out, 'foresight.js')), { level: 9 }).length;
if (gzipped > SIZE_BUDGET_BYTES) {
  console.error(`dist/sdk/foresight.js is ${gzipped} bytes gzipped, over its budget of ${SIZE_BUDGET_BYTES}.`);
  process.exit(1);
}
console.log(`web SDK: dist/sdk/foresight.js ${gzipped} bytes gzipped (budget ${SIZE_BUDGET_BYTES})`);
