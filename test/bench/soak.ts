// npm run soak — Foresight for a long stretch on a PostgreSQL and a Redis of its own, 2 API processes
// and 2 workers under a supervisor, a mixed load (batched, single and SDK ingestion, predictions and
// batch predictions, retrains, bulk-scoring runs, webhooks to a receiver failing 20% of the time,
// erasures) while every fault kind is injected on a seeded schedule: kill -9 of an API and of a worker,
// PostgreSQL fast and immediate (crash) restarts, the postmaster stopped for 10 s, Redis restarted
// with its AOF and with its data lost. Prints every check of issue #41 and exits non-zero when one fails.
// Timings are printed as context; correctness decides.
//
// SOAK_MINUTES (default 30): the load. SOAK_SEED (default 41): the fault order and the load's draws.
// SOAK_RATE (default 10): ingestion requests per second (predictions at half). SOAK_RECOVERY_BOUND_S
// (default 60): errors must be over this long after each fault ends. SOAK_USERS (default 400): the users
// the load spreads over; each user's window, which every prediction reads, grows as the load sends more
// events in it, the faster the fewer users there are.
// SOAK_HEAP_SNAPSHOTS (e.g. 5,12): minutes into the load at which the first API and worker write a
// heap snapshot (to SOAK_HEAP_SNAPSHOT_DIR, default the current directory); a run for finding a leak.
// SOAK_MEMORY_SAMPLES: a file to write every memory sample to (JSON), to see the shape of a growth.
// SOAK_LOGS: a directory to write each API and worker process's log to (<slot>-<pid>.log), to see
// what a process was doing when its memory moved.
// SOAK_GC_TRACE=1: every API and worker logs each garbage collection (node's --trace-gc-nvp); with
// SOAK_LOGS, `node -r @swc-node/register test/bench/gc-trace.ts <log>` sums them per 2 minutes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { printChecks } from '../support/soak/checks';
import { runSoak } from '../support/soak/scenario';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
const SEED = Number(process.env.SOAK_SEED ?? 41);
const RATE = Number(process.env.SOAK_RATE ?? 10);
const RECOVERY_BOUND_S = Number(process.env.SOAK_RECOVERY_BOUND_S ?? 60);
const USERS = Number(process.env.SOAK_USERS ?? 400);
const HEAP_SNAPSHOTS_AT_MIN = process.env.SOAK_HEAP_SNAPSHOTS?.split(',').map(Number);
const HEAP_SNAPSHOT_DIR = process.env.SOAK_HEAP_SNAPSHOT_DIR ?? process.cwd();
const MEMORY_SAMPLES = process.env.SOAK_MEMORY_SAMPLES;
const LOGS = process.env.SOAK_LOGS;
const TRACE_GC = process.env.SOAK_GC_TRACE === '1';

async function main(): Promise<void> {
  console.log(`soak: ${MINUTES} min, seed ${SEED}, started ${new Date().toISOString()}`);
  const checks = await runSoak({
    seed: SEED,
    loadMs: MINUTES * 60_000,
    rate: RATE,
    users: USERS,
    erasures: Math.max(3, Math.round(MINUTES / 2)),
    // One round of the seven faults per 15 minutes: a fault every ~2 min in the default 30.
    faultRounds: Math.max(1, Math.floor(MINUTES / 15)),
    recoveryBoundMs: RECOVERY_BOUND_S * 1000,
    warmupMs: Math.max(30_000, MINUTES * 60_000 * 0.15),
    judgeMemory: true,
    traceGc: TRACE_GC,
    heapSnapshots: HEAP_SNAPSHOTS_AT_MIN && { atMs: HEAP_SNAPSHOTS_AT_MIN.map((min) => min * 60_000), dir: HEAP_SNAPSHOT_DIR },
    onMemorySamples: MEMORY_SAMPLES === undefined ? undefined : (samples) => writeFileSync(MEMORY_SAMPLES, JSON.stringify(samples)),
    onProcessLogs: LOGS === undefined ? undefined : (logs) => writeLogs(LOGS, logs),
  });
  const failures = printChecks(checks);
  console.log(`\nsoak finished ${new Date().toISOString()}: ${failures.length === 0 ? 'every check passed' : `${failures.length} failures`}`);
  if (failures.length > 0) process.exit(1);
}

function writeLogs(dir: string, logs: ReadonlyArray<{ process: string; pid: number; output: string }>): void {
  mkdirSync(dir, { recursive: true });
  for (const { process, pid, output } of logs) writeFileSync(join(dir, `${process}-${pid}.log`), output);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
