// Builds the web SDK into dist/sdk/: foresight.mjs (ES module, for bundlers), foresight.js (one
// minified file exposing the global `Foresight`, served by the API at /sdk/foresight.js) and the
// example page. Type-checks first, with the SDK's own tsconfig (DOM types), and fails when the
// browser bundle outgrows its gzipped size budget. Run by `npm run build` (postbuild).
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { checkGzippedSize, coreAlias, root, typecheck } from '../sdk-core/build-support.mjs';

const SIZE_BUDGET_BYTES = 8 * 1024;
const here = dirname(fileURLToPath(import.meta.url));
const out = join(root, 'dist', 'sdk');

typecheck(join(here, 'tsconfig.json'), 'The web SDK (libs/sdk-web)');
const common = {
  ...coreAlias,
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
checkGzippedSize(join(out, 'foresight.js'), 'web SDK', SIZE_BUDGET_BYTES);
