// Builds @foresight/node into dist/packages/node/, ready for `npm publish` from there. It needs
// nothing beyond Node.js itself (fetch, crypto): the build fails if package.json gains a dependency.
// Run by `npm run build` (postbuild), after generate-types.mjs.
import { buildPackage } from '../sdk-core/build-support.mjs';

await buildPackage({
  dir: 'sdk-node',
  outName: 'node',
  displayName: '@foresight/node (no runtime dependencies)',
  esbuildOptions: { platform: 'node', target: 'node20' },
});
