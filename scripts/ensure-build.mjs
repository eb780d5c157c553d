// Builds dist/ when it is missing or older than any source file, so `npm start` and `npm run cli` just work.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const ENTRY_POINTS = ['dist/apps/api/src/main.js', 'dist/apps/worker/src/main.js', 'dist/apps/cli/src/main.js'];

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

export function ensureBuilt() {
  const entries = ENTRY_POINTS.map((p) => join(root, p));
  const built = entries.every((p) => existsSync(p));
  const oldestBuild = built ? Math.min(...entries.map((p) => statSync(p).mtimeMs)) : 0;
  const sources = Math.max(newestSource(join(root, 'apps')), newestSource(join(root, 'libs')), statSync(join(root, 'package.json')).mtimeMs);
  if (!built || sources > oldestBuild) {
    process.stderr.write('building Foresight (npm run build)...\n');
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  }
  return root;
}
