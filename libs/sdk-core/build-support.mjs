// What every SDK package's build.mjs does the same way: type-check with the package's own
// tsconfig, bundle the platform-free core in (no runtime dependency on it), and report or enforce
// the gzipped size of what ships.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** esbuild options that resolve the core from source, as the packages' tsconfig paths do. */
export const coreAlias = { alias: { '@foresight/sdk-core': join(root, 'libs', 'sdk-core', 'src', 'index.ts') } };

export function typecheck(tsconfig, packageName) {
  try {
    execFileSync(join(root, 'node_modules', '.bin', 'tsc'), ['-p', tsconfig], { stdio: 'inherit' });
  } catch {
    console.error(`${packageName} does not type-check; see the errors above.`);
    process.exit(1);
  }
}

/** Prints the gzipped size of `file`; over `budgetBytes` (when given) the build fails. */
export function checkGzippedSize(file, packageName, budgetBytes) {
  const gzipped = gzipSync(readFileSync(file), { level: 9 }).length;
  const shown = relative(root, file);
  if (budgetBytes !== undefined && gzipped > budgetBytes) {
    console.error(`${shown} is ${gzipped} bytes gzipped, over its budget of ${budgetBytes}.`);
    process.exit(1);
  }
  console.log(`${packageName}: ${shown} ${gzipped} bytes gzipped${budgetBytes === undefined ? '' : ` (budget ${budgetBytes})`}`);
}

/**
 * Builds a publishable package from libs/<dir> into dist/packages/<outName>/: index.cjs and index.mjs
 * with the core bundled in, declarations under types/ (tsconfig.types.json), package.json and README.
 * Fails when package.json's version differs from the one src/library.ts sends, or when the package
 * would need a runtime dependency beyond `allowedDependencies` (its peers).
 */
export async function buildPackage({ dir, outName, displayName, esbuildOptions, allowedDependencies = [], sizeBudgetBytes }) {
  const { build } = await import('esbuild');
  const { copyFileSync } = await import('node:fs');
  const here = join(root, 'libs', dir);
  const out = join(root, 'dist', 'packages', outName);
  const manifest = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));
  const extra = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }).filter((name) => !allowedDependencies.includes(name));
  if (extra.length > 0) fail(`${displayName} must not depend on ${extra.join(', ')}.`);
  if (!readFileSync(join(here, 'src', 'library.ts'), 'utf8').includes(`version: '${manifest.version}'`)) {
    fail(`libs/${dir}/src/library.ts must send the package's version, ${manifest.version}.`);
  }
  typecheck(join(here, 'tsconfig.json'), `${displayName} (libs/${dir})`);
  rmSync(out, { recursive: true, force: true });
  const common = { ...coreAlias, ...esbuildOptions, entryPoints: [join(here, 'src', 'index.ts')], bundle: true, logLevel: 'warning' };
  await Promise.all([
    build({ ...common, format: 'cjs', outfile: join(out, 'index.cjs') }),
    build({ ...common, format: 'esm', outfile: join(out, 'index.mjs') }),
  ]);
  const bin = join(root, 'node_modules', '.bin');
  execFileSync(join(bin, 'tsc'), ['-p', join(here, 'tsconfig.types.json')], { stdio: 'inherit' });
  // The declarations name the core by its alias; point them at the copies beside them.
  execFileSync(join(bin, 'tsc-alias'), ['-p', join(here, 'tsconfig.types.json')], { stdio: 'inherit' });
  copyFileSync(join(here, 'package.json'), join(out, 'package.json'));
  copyFileSync(join(here, 'README.md'), join(out, 'README.md'));
  checkGzippedSize(join(out, 'index.mjs'), displayName, sizeBudgetBytes);
  pack(out, manifest.name);
}

/**
 * The package as the npm tarball `npm publish` would upload (`npm pack`), beside its folder in
 * dist/packages: the API serves it at /sdk/<file>, so a deployment on a private network installs its
 * own SDKs with `npm install https://<host>/sdk/<file>`. Earlier versions' tarballs are removed.
 */
function pack(out, packageName) {
  const destination = dirname(out);
  const prefix = `${packageName.replace(/^@/, '').replace('/', '-')}-`;
  for (const file of readdirSync(destination)) if (file.startsWith(prefix) && file.endsWith('.tgz')) rmSync(join(destination, file));
  const [{ filename, size }] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', destination], { cwd: out, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }),
  );
  console.log(`${packageName}: ${relative(root, join(destination, filename))} ${size} bytes (npm pack)`);
}

function fail(message) {
  console.error(message);
  process.exit(1);
}
