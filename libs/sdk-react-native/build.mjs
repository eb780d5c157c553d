// Builds @foresight/react-native into dist/packages/react-native/, ready for `npm publish` from there;
// react-native and AsyncStorage stay the app's own (peer dependencies). Fails over 15 KB gzipped.
// Run by `npm run build` (postbuild).
import { buildPackage } from '../sdk-core/build-support.mjs';

const PEERS = ['react-native', '@react-native-async-storage/async-storage'];

await buildPackage({
  dir: 'sdk-react-native',
  outName: 'react-native',
  displayName: '@foresight/react-native',
  esbuildOptions: { platform: 'neutral', target: 'es2020', minify: true, external: PEERS, mainFields: ['module', 'main'] },
  allowedDependencies: PEERS,
  sizeBudgetBytes: 15 * 1024,
});
