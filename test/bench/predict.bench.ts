// npm run bench:predict — GET /v1/predict with 3 serving models over 10,000 demo users, beside a bare
// Fastify route doing one primary-key lookup in the same Postgres, and raw ONNX Runtime session.run.
// Three paths are measured apart: a user's first request while the window the promotions' bulk scoring
// kept of them holds (read from user_windows, features, 3 inferences, logged), a user's first request
// after a new event (the kept window and the events stored since), and a repeat with nothing new since
// (one revision read, answered from the process's cache). POST /v1/predict/batch is measured on
// first-time users too, as users per second beside the single route's.
//
// "First-time" is first for the API process: its cache holds every user it answered. So each round
// starts fresh API processes, and every round meets every user for the first time again; the rounds
// alternate with rounds of the baseline, and each case keeps its median round, so the machine's swings
// hit baseline and subject alike. CPU per request (or per user) of each process, from /proc, shows
// which side the throughput is bound by; a raw COPY of the logged rows is the floor of the log's part.
// A user's first request is measured twice per round: on a direct connection (DATABASE_POOL_MODE=session,
// named prepared statements) and through PgBouncer in transaction pooling mode (DATABASE_POOL_MODE=
// transaction: nothing prepared, every statement planned again), each on a fresh API process.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { request } from '../support/http';
import { PgBouncer } from '../support/pgbouncer';
import { cliJson, type RunningProcess, startApi, startServer, startWorker } from '../support/processes';
import { promotionRunsDone, settledModel } from '../support/training';
import { benchmark } from './support/benchmark';
import { CpuPerUnit, postgresProcesses, processSide } from './support/cpu';
import { DAYS, MODELS } from './support/demo-models';
import { fixedRate, load, type LoadResult, ratioLine, report } from './support/measure';
import { sendOneEventEach } from './support/new-events';
import { rawPredictionsWrite } from './support/prediction-log';

const USERS = 10_000;
/** Users per POST /v1/predict/batch request, and requests in flight at once. */
const BATCH_SIZE = 500;
const BATCH_CONCURRENCY = 2;
/** Rounds of every case, each with fresh API processes; a case reports its median round. */
const ROUNDS = 3;
/** Seconds of each round of the duration-bound cases (the baseline, repeats). */
const ROUND_SECONDS = 4;
/** Rows per statement of the served log's raw-COPY floor: the API's log flushes at most this many. */
const LOG_FLUSH_ROWS = 1_000;

benchmark('bench_predict', async (suite) => {
  const { organization, token } = await suite.createOrganization('Bench', ['--rate-limit', '100000000', '--burst', '200000000']);
  const seeded = await cliJson<{ accepted: number; seconds: number }>(suite.env, ['demo', 'seed', '--org', organization.id, '--users', String(USERS), '--days', String(DAYS)]);
  console.log(`seeded ${USERS} users, ${seeded.accepted} events in ${seeded.seconds.toFixed(1)} s`);
  // Postgres on this machine runs with autovacuum off; production's autovacuum would have analyzed the bulk load by now.
  await suite.sql('ANALYZE');

  // As many server connections as an API process pools (DATABASE_POOL_SIZE's default), kept: the pooler does not throttle or reconnect.
  const bouncer = await PgBouncer.start({ poolSize: 10, serverIdleTimeoutSeconds: 600, serverLifetimeSeconds: 3600 });
  const direct = { ...suite.env, DATABASE_POOL_MODE: 'session' };
  const pooled = { ...suite.env, DATABASE_URL: bouncer.urlFor(suite.env.DATABASE_URL), DATABASE_POOL_MODE: 'transaction' };
  const api = await startApi({ ...suite.env, LOG_LEVEL: 'warn' });
  const bare = await startServer(['-r', '@swc-node/register', join(__dirname, 'baselines', 'bare-lookup.server.ts')], { DATABASE_URL: suite.env.DATABASE_URL });
  const worker = await startWorker(suite.env);
  try {
    const auth = { token: token.secret };
    for (const model of MODELS) {
      const created = await request<{ id: string }>(`${api.baseUrl}/v1/models`, { ...auth, method: 'POST', body: model });
      await request(`${api.baseUrl}/v1/models/retrain`, { ...auth, method: 'POST', body: { modelId: created.body.id } });
      const settled = await settledModel(api.baseUrl, token.secret, created.body.id, worker, 10 * 60_000);
      if (settled.status !== 'active') throw new Error(`${model.name}: ${settled.status} ${settled.lastError}`);
    }
    // Each promotion queued a bulk scoring run, which keeps every active user's window in user_windows.
    await promotionRunsDone(suite, organization.id, 10 * 60_000);
    await worker.stop();
    await suite.sql('ANALYZE');
    // Users who sent at least one event (a few generated users churn before their first one): no 404s
    // in the mix. Shuffled and split: warm-up users apart; users whose window the scoring runs kept
    // (every user active in the last 30 days, and the inactive ones a window of no events), read from
    // user_windows; and users who send an event now, read off their kept window and the events stored
    // since (or off the events, for users without a kept window, if any).
    const [withWindow, withoutWindow] = await Promise.all(
      ['EXISTS', 'NOT EXISTS'].map(async (exists) =>
        shuffle(
          (
            await suite.sql<{ user_id: string }>(
              `SELECT a.user_id FROM user_activity a WHERE ${exists} (SELECT 1 FROM user_windows w WHERE (w.organization_id, w.user_id, w.revision) = (a.organization_id, a.user_id, a.revision))`,
            )
          ).map((r) => r.user_id),
        ),
      ),
    );
    const users = [...withWindow, ...withoutWindow];
    // The warm-up meets both paths (GET and batch), so neither is planned for the first time on a pooled connection while measured.
    const [warmUsers, warmBatchUsers] = [withWindow.slice(0, 500), withWindow.slice(500, 500 + BATCH_SIZE)];
    const measured = withWindow.slice(500 + BATCH_SIZE);
    const keptUsers = measured.slice(0, Math.floor(measured.length / 2));
    const changedUsers = shuffle([...measured.slice(keptUsers.length), ...withoutWindow]);
    await sendOneEventEach(api.baseUrl, token.secret, changedUsers);
    console.log(`${withWindow.length} users with a kept window, ${withoutWindow.length} without; ${changedUsers.length} of them sent a new event`);
    const probe = await request<{ predictions: unknown[] }>(`${api.baseUrl}/v1/predict?userId=${warmUsers[0]}`, auth);
    if (probe.body.predictions.length !== MODELS.length) throw new Error(`expected ${MODELS.length} predictions, got ${JSON.stringify(probe.body)}`);

    const raw = await rawSessionRun(suite.env.DATABASE_URL);
    const headers = { authorization: `Bearer ${token.secret}` };
    const predictPath = (pick: () => string) => () => `/v1/predict?userId=${encodeURIComponent(pick())}`;
    const eachOnce = (list: string[]) => {
      let next = 0;
      return () => list[next++ % list.length];
    };
    const randomOf = (list: string[]) => () => list[Math.floor(Math.random() * list.length)];

    // The API process of the round, started fresh (empty cache) and warmed up (JIT, ONNX sessions,
    // prepared statements on every pooled connection) on users kept apart.
    let serving: RunningProcess | undefined;
    const freshApi = async (warmUp: (baseUrl: string) => Promise<unknown>, env = direct) => {
      await serving?.stop();
      serving = await startApi({ ...env, LOG_LEVEL: 'warn' });
      await warmUp(serving.baseUrl);
      return serving.baseUrl;
    };
    const warmGet = (baseUrl: string) => load(`${baseUrl}/v1/predict`, { headers, path: predictPath(randomOf(warmUsers)), connections: 20, durationSeconds: 3 });
    const postgres = postgresProcesses(suite);
    const loadGenerator = processSide(process.pid);
    const servingSide = async () => (serving ? [serving.child.pid as number] : []);
    const cpu = {
      baseline: new CpuPerUnit({ postgres, baseline: processSide(bare.child.pid), 'load generator': loadGenerator }, 'requests'),
      firstTime: new CpuPerUnit({ postgres, API: servingSide, 'load generator': loadGenerator }, 'requests'),
      firstTimePooled: new CpuPerUnit({ postgres, API: servingSide, pgbouncer: processSide(bouncer.pid), 'load generator': loadGenerator }, 'requests'),
      afterEvent: new CpuPerUnit({ postgres, API: servingSide, 'load generator': loadGenerator }, 'requests'),
      batch: new CpuPerUnit({ postgres, API: servingSide, 'load generator': loadGenerator }, 'users'),
    };
    const inRound = (result: LoadResult) => result.requestsPerSecond * ROUND_SECONDS;
    const rounds = {
      baseline: [] as LoadResult[],
      firstTime: [] as LoadResult[],
      firstTimePooled: [] as LoadResult[],
      afterEvent: [] as LoadResult[],
      repeat: [] as LoadResult[],
      steady: [] as LoadResult[],
    };
    const batchRounds: BatchResult[] = [];
    try {
      const once = (baseUrl: string, list: string[]) => () => load(`${baseUrl}/v1/predict`, { headers, requests: list.length, path: predictPath(eachOnce(list)) });
      // The same first-time requests from a process that reaches PostgreSQL through PgBouncer; before the direct ones in every other round.
      const firstTimePooled = async () => {
        const pooledApi = await freshApi(warmGet, pooled);
        rounds.firstTimePooled.push(await cpu.firstTimePooled.measure(once(pooledApi, keptUsers), () => keptUsers.length));
      };
      for (let round = 0; round < ROUNDS; round++) {
        if (round % 2 === 1) await firstTimePooled();
        const single = await freshApi(warmGet);
        rounds.baseline.push(
          await cpu.baseline.measure(() => load(`${bare.baseUrl}/lookup`, { path: () => `/lookup?id=${randomOf(users)()}`, durationSeconds: ROUND_SECONDS }), inRound),
        );
        rounds.firstTime.push(await cpu.firstTime.measure(once(single, keptUsers), () => keptUsers.length));
        rounds.afterEvent.push(await cpu.afterEvent.measure(once(single, changedUsers), () => changedUsers.length));
        // Every measured user has now been answered by this process: a random one is a repeat with nothing new, checked by one revision read.
        rounds.repeat.push(await load(`${single}/v1/predict`, { headers, path: predictPath(randomOf(measured)), durationSeconds: ROUND_SECONDS }));
        if (round % 2 === 0) await firstTimePooled();
        // Latency at a fixed rate and the batch route, on a process that has answered none of their users.
        const other = await freshApi(async (baseUrl) => {
          await warmGet(baseUrl);
          await predictInBatches(baseUrl, token.secret, warmBatchUsers);
        });
        rounds.steady.push(await fixedRate(`${other}/v1/predict`, { headers, rate: 300, durationSeconds: 10, path: predictPath(eachOnce(changedUsers)) }));
        batchRounds.push(await cpu.batch.measure(() => predictInBatches(other, token.secret, keptUsers), () => keptUsers.length));
      }
    } finally {
      await serving?.stop();
    }
    for (const [name, results] of Object.entries(rounds)) {
      const failed = results.reduce((sum, r) => sum + r.non2xx + r.errors, 0);
      if (failed > 0) throw new Error(`${name}: ${failed} failed requests`);
    }
    const [logged] = await suite.sql<{ n: string }>('SELECT count(*) AS n FROM predictions');
    const logFloor = await rawPredictionsWrite(suite.env.DATABASE_URL, `WHERE scoring_run IS NULL ORDER BY id DESC LIMIT ${keptUsers.length * MODELS.length}`, LOG_FLUSH_ROWS);

    const perRound = (name: string, results: number[], unit: string) => console.log(`${name}: ${unit} per round ${results.map((r) => r.toFixed(0)).join(', ')}`);
    const byRate = (results: LoadResult[]) => median(results, (r) => r.requestsPerSecond);
    const cases = [
      { name: 'baseline: bare Fastify, one PK lookup', results: rounds.baseline },
      { name: `GET /v1/predict, first-time, window kept (${keptUsers.length})`, results: rounds.firstTime },
      { name: 'the same through PgBouncer (transaction mode)', results: rounds.firstTimePooled },
      { name: `GET /v1/predict, first-time after an event (${changedUsers.length})`, results: rounds.afterEvent },
      { name: 'GET /v1/predict, repeat user', results: rounds.repeat },
    ];
    for (const { name, results } of cases) perRound(name, results.map((r) => r.requestsPerSecond), 'req/s');
    perRound('p99 ms at 300 req/s', rounds.steady.map((r) => r.p99Ms), 'ms');
    const medians = cases.map(({ name, results }) => ({ name, result: byRate(results) }));
    const [baseline, firstTime, firstTimePooled, firstAfterEvent, repeat] = medians.map(({ result }) => result);
    const steady = median(rounds.steady, (r) => r.p99Ms);
    const batch = median(batchRounds, (r) => r.usersPerSecond);
    report(
      `bench:predict (3 models; autocannon, 50 connections; median of ${ROUNDS} rounds, each on fresh API processes, alternating with the baseline; API LOG_LEVEL=warn)`,
      [...medians, { name: 'GET /v1/predict at 300 req/s, after an event, 10 s', result: steady }],
    );
    ratioLine('throughput ratio first-time (kept) / baseline', firstTime.requestsPerSecond, baseline.requestsPerSecond, '>= 0.35');
    ratioLine('first-time (kept) through PgBouncer / direct', firstTimePooled.requestsPerSecond, firstTime.requestsPerSecond, '>= 0.8');
    ratioLine('throughput ratio first-time (after an event) / baseline', firstAfterEvent.requestsPerSecond, baseline.requestsPerSecond, '>= 0.35');
    ratioLine('throughput ratio repeat / baseline', repeat.requestsPerSecond, baseline.requestsPerSecond, '>= 0.6');
    perRound('POST /v1/predict/batch, first-time', batchRounds.map((r) => r.usersPerSecond), 'users/s');
    console.log(
      `${`POST /v1/predict/batch, first-time users/s`.padEnd(44)}${batch.usersPerSecond.toFixed(0).padStart(10)}   ` +
        `(${keptUsers.length} users, windows kept, ${BATCH_SIZE} per request, ${BATCH_CONCURRENCY} in flight; mean ${batch.meanRequestMs.toFixed(0)} ms per request)`,
    );
    ratioLine('per-user throughput batch / GET first-time (kept)', batch.usersPerSecond, firstTime.requestsPerSecond, '>= 10');
    console.log(`${'p99 at 300 req/s (open loop), ms'.padEnd(44)}${steady.p99Ms.toFixed(1).padStart(10)}   target <= 10 (median round)`);
    console.log(`${'raw session.run (1 row, gbdt), mean µs'.padEnd(44)}${raw.meanUs.toFixed(1).padStart(10)}   p99 ${raw.p99Us.toFixed(1)} µs`);
    console.log(`${'predictions logged during the run'.padEnd(44)}${logged.n.padStart(10)}   (each round's processes log their users afresh; repeats are not logged again)`);
    const cores = availableParallelism();
    console.log('\nCPU per request (per user for the batch), all rounds, from /proc:');
    console.log(`  baseline:                       ${cpu.baseline.summary(cores)}`);
    console.log(`  GET first-time, window kept:    ${cpu.firstTime.summary(cores)}`);
    console.log(`  the same through PgBouncer:     ${cpu.firstTimePooled.summary(cores)}`);
    console.log(`  GET first-time after an event:  ${cpu.afterEvent.summary(cores)}`);
    console.log(`  POST /v1/predict/batch, a user: ${cpu.batch.summary(cores)}`);
    const logFloorUs = (logFloor.postgresCpuSeconds * 1e6) / keptUsers.length;
    console.log(
      `floor: raw COPY of a user's ${MODELS.length} log rows (${logFloor.rows} rows, ${LOG_FLUSH_ROWS} per statement): Postgres ${logFloorUs.toFixed(1)} µs CPU per user, ` +
        `${(keptUsers.length / logFloor.seconds).toFixed(0)} users/s alone`,
    );
    console.log(
      `CPU a batch user may cost for 10x GET first-time (kept): ${(cpu.firstTime.microseconds() / 10).toFixed(1)} µs in all (GET's total / 10); ` +
        `it costs ${cpu.batch.microseconds().toFixed(1)}, of which Postgres ${cpu.batch.microseconds('postgres').toFixed(1)}`,
    );
  } finally {
    await Promise.all([api.stop(), bare.stop(), worker.stop()]);
    await bouncer.stop();
  }
});

interface BatchResult {
  usersPerSecond: number;
  meanRequestMs: number;
}

/** The median of the results by `key` (the upper one of an even count). */
function median<T>(results: T[], key: (result: T) => number): T {
  return [...results].sort((a, b) => key(a) - key(b))[Math.floor(results.length / 2)];
}

/** POST /v1/predict/batch over the users, BATCH_SIZE per request and BATCH_CONCURRENCY requests in flight; every user must be answered by every model. */
async function predictInBatches(baseUrl: string, token: string, users: string[]): Promise<BatchResult> {
  const batches = Array.from({ length: Math.ceil(users.length / BATCH_SIZE) }, (_, i) => users.slice(i * BATCH_SIZE, (i + 1) * BATCH_SIZE));
  const requestMs: number[] = [];
  const started = performance.now();
  const drive = async () => {
    for (let userIds = batches.shift(); userIds; userIds = batches.shift()) {
      const sent = performance.now();
      const answer = await request<{ results: Array<{ predictions?: unknown[] }> }>(`${baseUrl}/v1/predict/batch`, { token, method: 'POST', body: { userIds } });
      requestMs.push(performance.now() - sent);
      if (answer.status !== 200 || !answer.body.results.every((r) => r.predictions?.length === MODELS.length)) {
        throw new Error(`POST /v1/predict/batch: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: BATCH_CONCURRENCY }, drive));
  const seconds = (performance.now() - started) / 1000;
  return { usersPerSecond: users.length / seconds, meanRequestMs: requestMs.reduce((a, b) => a + b, 0) / requestMs.length };
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/** ONNX Runtime alone: the checkout model's session, one row per run, as serving calls it. */
async function rawSessionRun(databaseUrl: string): Promise<{ meanUs: number; p99Us: number }> {
  const { Client } = await import('pg');
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  const { rows } = await pg.query<{ onnx: Buffer; names: number }>(
    `SELECT v.onnx, jsonb_array_length(v.manifest->'names') AS names FROM model_versions v JOIN models m ON m.serving_version_id = v.id WHERE m.name = 'checkout_7d'`,
  );
  await pg.end();
  const session = await InferenceSession.create(rows[0].onnx, { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' });
  const input = new Tensor('float32', Float32Array.from({ length: rows[0].names }, (_, i) => i % 7), [1, rows[0].names]);
  const times: number[] = [];
  for (let i = 0; i < 5_000; i++) {
    const started = performance.now();
    await session.run({ features: input });
    if (i >= 500) times.push((performance.now() - started) * 1000);
  }
  await session.release();
  times.sort((a, b) => a - b);
  return { meanUs: times.reduce((a, b) => a + b, 0) / times.length, p99Us: times[Math.floor(times.length * 0.99)] };
}
