// A service process (the API or a worker) as npm start, npm run start:worker and the image run it: node
// with the flags and environment of node-flags.json (it says why), signals passed on, its exit code ours.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const { flags, env } = require('./node-flags.json');

/** Runs `entry` (a path under the build's root); `onExit` runs before this process exits with the child's code. */
export function runServiceProcess(root, entry, onExit = () => {}) {
  const child = spawn(process.execPath, [...flags, join(root, entry)], { stdio: 'inherit', env: { ...process.env, ...env } });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    onExit();
    process.exit(code ?? (signal ? 1 : 0));
  });
  return child;
}
