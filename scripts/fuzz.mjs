// `npm run fuzz`: the hostile-input suite with 20 times the cases of `npm test` and a random seed,
// printed first so a failure can be replayed: FUZZ_SEED=<seed> FUZZ_RUNS=<runs> npm run fuzz.
// FUZZ_COLLECT=1 keeps going after a failure and lists every distinct one (FUZZ_FINDINGS, default $TMPDIR/foresight-hostile-findings.json).
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';

const seed = process.env.FUZZ_SEED ?? String(randomInt(1, 2 ** 31 - 1));
const runs = process.env.FUZZ_RUNS ?? '500';
console.log(`hostile-input fuzz: FUZZ_SEED=${seed} FUZZ_RUNS=${runs} (replay with the same values)`);
const result = spawnSync('npx', ['jest', 'test/e2e/hostile-input.e2e-spec.ts', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, FUZZ_SEED: seed, FUZZ_RUNS: runs, FUZZ_OPERATION_MS: process.env.FUZZ_OPERATION_MS ?? '300000' },
});
console.log(`hostile-input fuzz: FUZZ_SEED=${seed} FUZZ_RUNS=${runs}`);
process.exit(result.status ?? 1);
