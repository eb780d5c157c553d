// npm run bench — every benchmark under test/bench, one after the other (they share the machine).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const benches = readdirSync(__dirname).filter((f) => f.endsWith('.bench.ts')).sort();
let failed = 0;
for (const bench of benches) {
  console.log(`\n### ${bench}`);
  const result = spawnSync(process.execPath, ['-r', '@swc-node/register', join(__dirname, bench)], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
process.exit(failed > 0 ? 1 : 0);
