// What every SDK package's build.mjs does the same way: type-check with the package's own
// tsconfig, bundle the platform-free core in (no runtime dependency on it), and report or enforce
// the gzipped size of what ships.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
