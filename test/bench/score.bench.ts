// npm run bench:score — bulk scoring of every active demo user (50,000; BENCH_SCORE_USERS to change; BENCH_SCORE_SHARDS sets
// SCORING_SHARDS, the shards a run is cut into) with 3 serving models, run by
// the worker (`model score` with all three: one pass over the events), with a month of daily runs already
// in the prediction log (each user's previous labels are read against it), beside three in-run floors: a
// raw COPY of the same window's events in the cursor's order (what reading alone costs), raw ONNX
// Runtime over the same number of rows in the same chunks (what inference alone costs), and a raw
// COPY of the prediction rows a run writes into the prediction log, a chunk per statement (what
// writing alone costs). Run
// three times: the first with no window kept (every user's window read off the events, as when nobody
// was scored before), the second like a daily run, reading the windows the first kept for users who
// sent nothing since, with yesterday's labels to compare against, and the third after a fifth of the
// users sent an event (read off their kept window and the events stored since). The worker's
// breakdown (read, features, inference, write, windows, webhooks, summed over the run's shards) is
// printed. Then the repeat run again with 1, 2 and 4 workers sharing its shards: each worker's share
// of the users, the CPU per user of the workers and of Postgres (from /proc), their ratio to one
// worker's, and the users/s N workers would reach with a core each, the database's share stated.
// Each set of workers does one run first, printed beside but not compared: freshly started processes
// pay about a second of CPU each (loading the models, compiling hot code) that a long-lived worker's
// daily run does not, and with 4 workers that would be counted 4 times against one worker's once.
// One worker runs twice: beside an idle second core, and beside a CPU burner that keeps the other core
// busy. With 2 and 4 workers both cores are busy, and every process pays more per unit of work (shared
// caches, memory bandwidth, vCPUs that may be SMT siblings on the host): the target's ratio is taken
// against the busy-core case, which pays the same; the quiet one is printed beside it.
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { Client } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { request } from '../support/http';
import { cliJson, type RunningProcess, startApi, startWorker, statusKiB } from '../support/processes';
import type { TestSuite } from '../support/suite';
import { promotionRunsDone, settledModel } from '../support/training';
import { benchmark } from './support/benchmark';
import { cpuDuring, postgresProcesses, processSide } from './support/cpu';
import { DAYS, MODELS } from './support/demo-models';
import { ratioLine } from './support/measure';
import { sendOneEventEach } from './support/new-events';
import { logEarlierRuns, rawPredictionsWrite } from './support/prediction-log';

const USERS = Number(process.env.BENCH_SCORE_USERS ?? 50_000);
/** SCORING_SHARDS for the run (the service's default when unset). */
const SHARDS = process.env.BENCH_SCORE_SHARDS;
const TARGET_USERS_PER_SECOND = 20_000;
/** The worker's default chunk: rows per ONNX Runtime run in the raw floor too. */
const CHUNK_USERS = 4_000;
const FEATURE_WINDOW_DAYS = 30;
/** Days of daily runs the prediction log holds before the measured runs. */
const LOGGED_DAYS = 30;
/** Of the active users, those who send an event between the repeat run and the next (a day's traffic). */
const CHANGED_SHARE = 0.2;
/** Workers sharing one run's shards in the scaling cases, and whether a CPU burner keeps the other core busy beside them. */
const SCALING_CASES: ReadonlyArray<{ workers: number; burner: boolean }> = [
  { workers: 1, burner: false },
  { workers: 1, burner: true },
  { workers: 2, burner: false },
  { workers: 4, burner: false },
];

interface ScoreResult {
  run: string;
  scored: number;
  total: number;
  changed: number;
  seconds: number;
}

benchmark('bench_score', async (suite) => {
  const { organization, token } = await suite.createOrganization('Bench', ['--rate-limit', '100000000', '--burst', '200000000']);
  // The CLI's own logs (on stdout, as JSON lines) stay out of the answers parsed here.
  const cliEnv = { ...suite.env, LOG_LEVEL: 'silent' };
  const seeded = await cliJson<{ accepted: number; seconds: number }>(cliEnv, ['demo', 'seed', '--org', organization.id, '--users', String(USERS), '--days', String(DAYS)]);
  console.log(`seeded ${USERS} users, ${seeded.accepted} events in ${seeded.seconds.toFixed(1)} s`);
  // Postgres on this machine runs with autovacuum off; production's autovacuum would have analyzed the bulk load by now.
  await suite.sql('ANALYZE');

  // Training reads a sample of 10,000 users (TRAINING_MAX_USERS), as a large organization's would; scoring reads everyone.
  const env = { ...suite.env, TRAINING_MAX_USERS: '10000', ...(SHARDS ? { SCORING_SHARDS: SHARDS } : {}) };
  const api = await startApi({ ...env, LOG_LEVEL: 'warn' });
  let worker: RunningProcess | undefined = await startWorker(env);
  try {
    const modelIds: string[] = [];
    for (const model of MODELS) {
      const created = await request<{ id: string }>(`${api.baseUrl}/v1/models`, { token: token.secret, method: 'POST', body: model });
      await request(`${api.baseUrl}/v1/models/retrain`, { token: token.secret, method: 'POST', body: { modelId: created.body.id } });
      const settled = await settledModel(api.baseUrl, token.secret, created.body.id, worker, 15 * 60_000);
      if (settled.status !== 'active') throw new Error(`${model.name}: ${settled.status} ${settled.lastError}`);
      modelIds.push(created.body.id);
    }
    // Each promotion queued a run of its own model; the measured runs start on a quiet queue.
    await promotionRunsDone(suite, organization.id, 15 * 60_000);
    // The log as a daily job leaves it: the promotion runs' rows again for each of the LOGGED_DAYS days
    // before, so a run's read of each user's previous labels meets a month of history, as in production.
    const logged = await logEarlierRuns(suite, organization.id, LOGGED_DAYS);
    console.log(`logged ${logged} earlier predictions (${LOGGED_DAYS} days of daily runs)`);
    await suite.sql('ANALYZE');

    const read = await rawWindowRead(suite, organization.id);
    const inference = await rawInference(suite.env.DATABASE_URL, read.users);
    const score = ['model', 'score', '--org', organization.id, '--model', ...modelIds];
    // The promotions' runs kept every active user's window: forgotten, so the first run reads the events.
    await suite.sql('DELETE FROM user_windows');
    // CPU per side, from /proc: which process holds the run back on the 2 cores they share.
    const sides = { postgres: postgresProcesses(suite), worker: processSide(worker.child.pid) };
    const workerPid = worker.child.pid as number;
    const memoryBefore = { rss: statusKiB(workerPid, 'VmRSS'), peak: statusKiB(workerPid, 'VmHWM') };
    // Linux: 5 resets the process's peak RSS to its current RSS, so what follows is the runs' own peak.
    writeFileSync(`/proc/${workerPid}/clear_refs`, '5');
    const { result: first, seconds: firstCpu } = await cpuDuring(sides, () => cliJson<ScoreResult>(cliEnv, score));
    const firstPeak = statusKiB(workerPid, 'VmHWM');
    const { result: second, seconds: secondCpu } = await cpuDuring(sides, () => cliJson<ScoreResult>(cliEnv, score));
    // A day's traffic, then the next run: the users who sent an event are read off their kept window and the events stored since.
    const users = await suite.sql<{ user_id: string }>(
      `SELECT user_id FROM (SELECT DISTINCT user_id FROM predictions WHERE organization_id = $1 AND scoring_run = $2) scored ORDER BY random()`,
      [organization.id, second.run],
    );
    const changedUsers = users.slice(0, Math.round(users.length * CHANGED_SHARE)).map((row) => row.user_id);
    await sendOneEventEach(api.baseUrl, token.secret, changedUsers);
    const { result: third, seconds: thirdCpu } = await cpuDuring(sides, () => cliJson<ScoreResult>(cliEnv, score));
    const write = await rawPredictionsWrite(suite.env.DATABASE_URL, `WHERE scoring_run = '${second.run}' ORDER BY user_id, model_id`, CHUNK_USERS * MODELS.length);
    const memoryAfter = { rss: statusKiB(workerPid, 'VmRSS'), peak: statusKiB(workerPid, 'VmHWM') };
    const breakdowns = [first, second, third].map((run) => runTimings(shardLines(worker as RunningProcess, run.run)));
    await worker.stop();
    worker = undefined;
    const scaling: WorkersCase[] = [];
    for (const { workers, burner } of SCALING_CASES) scaling.push(await repeatRunWith(workers, burner, env, cliEnv, score, postgresProcesses(suite)));

    const rate = (r: ScoreResult) => r.scored / r.seconds;
    console.log(`\nbench:score (${USERS} demo users, ${MODELS.length} models in one run, chunks of ${CHUNK_USERS}; worker on the same 2 cores as Postgres)`);
    console.log(`${'case'.padEnd(52)}${'users/s'.padStart(10)}${'seconds'.padStart(10)}`);
    const line = (name: string, usersPerSecond: number, seconds: number) => console.log(`${name.padEnd(52)}${usersPerSecond.toFixed(0).padStart(10)}${seconds.toFixed(2).padStart(10)}`);
    line(`floor: raw COPY of the window's events (${read.rows} rows)`, read.users / read.seconds, read.seconds);
    line(`floor: raw ONNX Runtime, ${MODELS.length} models × ${read.users} rows`, read.users / inference.seconds, inference.seconds);
    line(
      `floor: raw COPY of a run's prediction rows (${write.rows} rows; Postgres ${((write.postgresCpuSeconds * 1e6) / read.users).toFixed(1)} µs CPU per user)`,
      read.users / write.seconds,
      write.seconds,
    );
    line(`bulk scoring, first run, off the events (${first.scored} users, ${first.changed} changes)`, rate(first), first.seconds);
    line(`bulk scoring, repeat run, kept windows (${second.scored} users, ${second.changed} changes)`, rate(second), second.seconds);
    line(`bulk scoring, after ${changedUsers.length} users sent an event (${third.scored} users, ${third.changed} changes)`, rate(third), third.seconds);
    ratioLine('repeat run / first run', rate(second), rate(first), '(in-run: what kept windows save)');
    ratioLine('repeat run / raw COPY read', rate(second), read.users / read.seconds, 'as close to 1 as the work allows');
    ratioLine('repeat run / raw COPY write', rate(second), read.users / write.seconds, '(in-run: the prediction log alone)');
    ratioLine('repeat run / target', rate(second), TARGET_USERS_PER_SECOND, `>= 1 (${TARGET_USERS_PER_SECOND} users/s)`);
    ratioLine('run after new events / repeat run', rate(third), rate(second), '(in-run: what the events stored since cost)');
    for (const run of [first, second, third]) if (run.scored !== read.users) throw new Error(`scored ${run.scored} users in ${run.run}, ${read.users} are active`);
    console.log('\nCPU seconds per run (worker, Postgres), beside its wall-clock seconds:');
    for (const [name, run, cpu] of [['first', first, firstCpu], ['repeat', second, secondCpu], ['new events', third, thirdCpu]] as const) {
      console.log(`  ${name.padEnd(12)}worker ${cpu.worker.toFixed(2)}, Postgres ${cpu.postgres.toFixed(2)}, wall ${run.seconds.toFixed(2)}`);
    }
    const mib = (kib: number) => (kib / 1024).toFixed(0);
    console.log(
      `\nworker memory (MiB, /proc): RSS before the runs ${mib(memoryBefore.rss)} (its peak before them ${mib(memoryBefore.peak)}, then reset); ` +
        `peak through the first run ${mib(firstPeak)}, through all three ${mib(memoryAfter.peak)}; RSS after them ${mib(memoryAfter.rss)}`,
    );
    ratioLine('worker peak RSS through the runs / RSS before', memoryAfter.peak, memoryBefore.rss, '(in-run: what a run holds at once, chunks in flight)');
    console.log('\nwhere the worker\'s time went (ms, per run, summed over its shards):');
    for (const breakdown of breakdowns) console.log(`  ${JSON.stringify(breakdown)}`);
    printScaling(scaling);
  } finally {
    await Promise.all([api.stop(), worker?.stop()]);
  }
});

/** Every event of the organization's feature window with the user it counts for, in user order, through COPY (the cursor's query). */
async function rawWindowRead(suite: TestSuite, organizationId: string): Promise<{ seconds: number; rows: number; users: number }> {
  const pg = new Client({ connectionString: suite.env.DATABASE_URL });
  await pg.connect();
  try {
    const window = `e.organization_id = '${organizationId}' AND e.occurred_at >= now() - interval '${FEATURE_WINDOW_DAYS} days'`;
    const user = 'coalesce(e.user_id, i.user_id)';
    const started = performance.now();
    let rows = 0;
    await pipeline(
      pg.query(
        copyTo(
          `COPY (SELECT ${user}, e.occurred_at, e.event, e.session_id, e.screen, e.dwell_ms, e.hesitation_ms, e.scroll_depth, e.numeric_properties, e.string_properties
                   FROM events e LEFT JOIN identities i ON i.organization_id = e.organization_id AND i.anonymous_id = e.anonymous_id
                  WHERE ${window} AND ${user} IS NOT NULL ORDER BY 1, e.occurred_at) TO STDOUT`,
        ),
      ),
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          for (const byte of chunk) if (byte === 10) rows++;
          done();
        },
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const [{ users }] = (
      await pg.query<{ users: string }>(
        `SELECT count(DISTINCT ${user}) AS users FROM events e LEFT JOIN identities i ON i.organization_id = e.organization_id AND i.anonymous_id = e.anonymous_id WHERE ${window} AND ${user} IS NOT NULL`,
      )
    ).rows;
    return { seconds, rows, users: Number(users) };
  } finally {
    await pg.end();
  }
}

/** The serving versions' graphs over `users` rows of features, CHUNK_USERS rows per run, one thread each as the worker runs them. */
async function rawInference(databaseUrl: string, users: number): Promise<{ seconds: number }> {
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  const { rows } = await pg.query<{ onnx: Buffer; names: number }>(
    `SELECT v.onnx, jsonb_array_length(v.manifest->'names') AS names FROM model_versions v JOIN models m ON m.serving_version_id = v.id`,
  );
  await pg.end();
  const sessions = await Promise.all(rows.map(async (row) => ({ width: row.names, session: await InferenceSession.create(row.onnx, { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' }) })));
  const input = (width: number, n: number) => new Tensor('float32', Float32Array.from({ length: n * width }, (_, i) => i % 7), [n, width]);
  const inputs = sessions.map(({ width }) => ({ full: input(width, CHUNK_USERS), last: input(width, users % CHUNK_USERS || CHUNK_USERS) }));
  const started = performance.now();
  for (let start = 0; start < users; start += CHUNK_USERS) {
    const last = start + CHUNK_USERS >= users;
    for (const [k, { session }] of sessions.entries()) await session.run({ features: last ? inputs[k].last : inputs[k].full });
  }
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(sessions.map(({ session }) => session.release()));
  return { seconds };
}

interface ShardLine {
  runId: string;
  scored: number;
  timings: Record<string, number>;
}

/** The worker's "scoring shard finished" lines of a run. */
function shardLines(worker: RunningProcess, runId: string): ShardLine[] {
  return worker
    .output()
    .split('\n')
    .filter((line) => line.includes('"scoring shard finished"'))
    .map((line) => JSON.parse(line) as ShardLine)
    .filter((line) => line.runId === runId);
}

function runTimings(lines: readonly ShardLine[]): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const { timings } of lines) for (const [stage, ms] of Object.entries(timings)) sum[stage] = Math.round((sum[stage] ?? 0) + ms);
  return sum;
}

interface WorkersCase {
  workers: number;
  /** A CPU burner kept the other core busy during the runs. */
  burner: boolean;
  run: ScoreResult;
  /** Users each worker scored. */
  shares: number[];
  workerCpu: number;
  postgresCpu: number;
  /** The workers' CPU in their first run, start-up costs included. */
  firstRunWorkerCpu: number;
  firstRun: ScoreResult;
}

/** The repeat run (kept windows) with `count` workers taking its shards, beside a CPU burner or not; CPU of the workers and of Postgres. */
async function repeatRunWith(
  count: number,
  burner: boolean,
  env: Record<string, string>,
  cliEnv: Record<string, string>,
  score: string[],
  postgres: () => Promise<number[]>,
): Promise<WorkersCase> {
  const workers: RunningProcess[] = [];
  let burning: ChildProcess | undefined;
  try {
    for (let i = 0; i < count; i++) workers.push(await startWorker(env));
    // A spinning process of its own: a core's worth of CPU that none of the measured processes is charged for.
    if (burner) burning = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
    const sides = { postgres, workers: async () => workers.flatMap((w) => (w.child.pid === undefined ? [] : [w.child.pid])) };
    const first = await cpuDuring(sides, () => cliJson<ScoreResult>(cliEnv, score));
    const { result: run, seconds } = await cpuDuring(sides, () => cliJson<ScoreResult>(cliEnv, score));
    const shares = workers.map((w) => shardLines(w, run.run).reduce((sum, line) => sum + line.scored, 0));
    return { workers: count, burner, run, shares, workerCpu: seconds.workers, postgresCpu: seconds.postgres, firstRunWorkerCpu: first.seconds.workers, firstRun: first.result };
  } finally {
    burning?.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.stop()));
  }
}

function printScaling(cases: readonly WorkersCase[]): void {
  const perUser = (cpu: number, run: ScoreResult) => (cpu * 1e6) / run.scored;
  const name = (c: WorkersCase) => `${c.workers}${c.burner ? ' + burner' : ''}`;
  const quiet = cases.find((c) => c.workers === 1 && !c.burner);
  const busy = cases.find((c) => c.workers === 1 && c.burner);
  if (!quiet || !busy) throw new Error('the scaling cases need one worker with and without the burner');
  console.log(`\nrepeat run shared by N workers (${SHARDS ?? 'the default number of'} shards of user id hashes; every process on the same 2 cores, so wall time shows no speed-up):`);
  console.log(
    `${'workers'.padEnd(13)}${'users/s'.padStart(9)}${'shares of users (target within 10% of 1/N)'.padStart(46)}${'worker µs/user'.padStart(16)}${'Postgres µs/user'.padStart(18)}${'first run worker µs/user'.padStart(26)}`,
  );
  for (const c of cases) {
    const shares = c.shares.map((n) => `${((n / c.run.scored) * 100).toFixed(1)}%`).join(' ');
    console.log(
      `${name(c).padEnd(13)}${(c.run.scored / c.run.seconds).toFixed(0).padStart(9)}${shares.padStart(46)}${perUser(c.workerCpu, c.run).toFixed(1).padStart(16)}${perUser(c.postgresCpu, c.run).toFixed(1).padStart(18)}${perUser(c.firstRunWorkerCpu, c.firstRun).toFixed(1).padStart(26)}`,
    );
  }
  ratioLine('1 worker, other core busy / other core idle', perUser(busy.workerCpu, busy.run), perUser(quiet.workerCpu, quiet.run), '(in-run: what a busy second core costs)');
  for (const c of cases.filter((c) => c.workers > 1)) {
    const worstShare = Math.max(...c.shares.map((n) => Math.abs(n / c.run.scored - 1 / c.workers) * c.workers));
    ratioLine(`${c.workers} workers: worst share off 1/N`, worstShare, 1, '<= 0.100 (relative to 1/N)');
    ratioLine(`${c.workers} workers: worker CPU/user / 1 worker's, busy`, perUser(c.workerCpu, c.run), perUser(busy.workerCpu, busy.run), '<= 1.100 (both cores busy in both)');
    ratioLine(`${c.workers} workers: worker CPU/user / 1 worker's, idle`, perUser(c.workerCpu, c.run), perUser(quiet.workerCpu, quiet.run), '(in-run, against a run beside an idle core)');
    ratioLine(`${c.workers} workers: Postgres CPU/user / 1 worker's, busy`, perUser(c.postgresCpu, c.run), perUser(busy.postgresCpu, busy.run), '(in-run)');
    ratioLine(`${c.workers} workers: first-run worker CPU/user / 1's`, perUser(c.firstRunWorkerCpu, c.firstRun), perUser(busy.firstRunWorkerCpu, busy.firstRun), '(start-up included, busy)');
  }
  for (const c of cases.filter((c) => !c.burner)) {
    const workerUs = perUser(c.workerCpu, c.run);
    const postgresUs = perUser(c.postgresCpu, c.run);
    // With a core per worker, the workers' side reaches N cores' worth; Postgres needs its own CPU per user on top.
    const workersBound = (c.workers * 1e6) / workerUs;
    console.log(
      `  with ${c.workers} core(s) for the workers: ${workersBound.toFixed(0)} users/s from the workers' CPU; Postgres's share of all CPU per user ` +
        `${((postgresUs / (workerUs + postgresUs)) * 100).toFixed(0)}% (${postgresUs.toFixed(1)} µs/user: ${(1e6 / postgresUs).toFixed(0)} users/s per Postgres core, ` +
        `${Math.ceil(workersBound / (1e6 / postgresUs))} Postgres core(s) to keep up)`,
    );
  }
}
