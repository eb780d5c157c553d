// `npm run cli -- <command>`: the operator CLI, built on demand.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureBuilt } from './ensure-build.mjs';

const root = ensureBuilt();
const result = spawnSync(process.execPath, [join(root, 'dist/apps/cli/src/main.js'), ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
