// npm run bench:predict — GET /v1/predict with 3 serving models over 10,000 demo users, beside a bare
// Fastify route doing one primary-key lookup in the same Postgres, and raw ONNX Runtime session.run.
// Three paths are measured apart: a user's first request while the window the promotions' bulk scoring
// kept of them holds (read from user_windows, features, 3 inferences, logged), a user's first request
// after a new event (the kept window and the events stored since), and a repeat with nothing new since
// (one revision read, answered from the process's cache). POST /v1/predict/batch is measured on
// first-time users too, as users per second beside the single route's.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { request } from '../support/http';
import { cliJson, startApi, startServer, startWorker } from '../support/processes';
import { promotionRunsDone, settledModel } from '../support/training';
import { benchmark } from './support/benchmark';
import { DAYS, MODELS } from './support/demo-models';
import { fixedRate, interleaved, load, ratioLine, report } from './support/measure';
import { sendOneEventEach } from './support/new-events';

const USERS = 10_000;
/** Users per POST /v1/predict/batch request, and requests in flight at once. */
const BATCH_SIZE = 500;
const BATCH_CONCURRENCY = 2;

benchmark('bench_predict', async (suite) => {
  const { organization, token } = await suite.createOrganization('Bench', ['--rate-limit', '100000000', '--burst', '200000000']);
  const seeded = await cliJson<{ accepted: number; seconds: number }>(suite.env, ['demo', 'seed', '--org', organization.id, '--users', String(USERS), '--days', String(DAYS)]);
  console.log(`seeded ${USERS} users, ${seeded.accepted} events in ${seeded.seconds.toFixed(1)} s`);
  // Postgres on this machine runs with autovacuum off; production's autovacuum would have analyzed the bulk load by now.
  await suite.sql('ANALYZE');

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
    // in the mix. Shuffled and split, so the fixed-rate run and each first-time peak meet users the API
    // process has never answered. The "window kept" peak and the batch meet users whose window the
    // scoring runs kept (every user active in the last 30 days, and the inactive ones a window of no
    // events); the fixed-rate run and the "new event" peak meet users without one, if any, and users
    // who sent an event after the scoring runs, read off their kept window and the events stored since.
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
    const [keptUsers, batchUsers] = [withWindow.slice(500, 2_500), withWindow.slice(2_500, 4_500)];
    const outdated = shuffle([...withWindow.slice(4_500), ...withoutWindow]);
    const [steadyUsers, changedUsers] = [outdated.slice(500, 3_000), outdated.slice(3_000)];
    // The warm-up meets both paths, so neither is planned for the first time on a pooled connection while measured.
    const warmUsers = shuffle([...withWindow.slice(0, 500), ...outdated.slice(0, 500)]);
    await sendOneEventEach(api.baseUrl, token.secret, outdated);
    console.log(`${withWindow.length} users with a kept window, ${withoutWindow.length} without; ${outdated.length} of them sent a new event`);
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
    // Warm-up (JIT, ONNX sessions, prepared statements on every pooled connection) on users kept apart.
    await load(`${api.baseUrl}/v1/predict`, { headers, path: predictPath(randomOf(warmUsers)), connections: 20, durationSeconds: 3 });
    const steady = await fixedRate(`${api.baseUrl}/v1/predict`, { headers, rate: 300, durationSeconds: 10, path: predictPath(eachOnce(steadyUsers)) });
    const firstTime = await load(`${api.baseUrl}/v1/predict`, { headers, requests: keptUsers.length, path: predictPath(eachOnce(keptUsers)) });
    const firstAfterEvent = await load(`${api.baseUrl}/v1/predict`, { headers, requests: changedUsers.length, path: predictPath(eachOnce(changedUsers)) });
    await predictInBatches(api.baseUrl, token.secret, warmUsers.slice(0, 2 * BATCH_SIZE));
    const batchFirstTime = await predictInBatches(api.baseUrl, token.secret, batchUsers);
    // Now every user has been answered once: a random user is a repeat with nothing new, checked by one revision read.
    const [baseline, repeat] = await interleaved([
      { name: 'baseline: bare Fastify, one PK lookup', url: `${bare.baseUrl}/lookup`, options: { path: () => `/lookup?id=${randomOf(users)()}` } },
      { name: 'GET /v1/predict, repeat user', url: `${api.baseUrl}/v1/predict`, options: { headers, path: predictPath(randomOf(users)) } },
    ]);
    for (const { name, result } of [repeat, { name: 'first-time', result: firstTime }, { name: 'first-time after an event', result: firstAfterEvent }, { name: 'steady', result: steady }]) {
      if (result.non2xx + result.errors > 0) throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    }
    const [logged] = await suite.sql<{ n: string }>('SELECT count(*) AS n FROM predictions');
    report('bench:predict (3 models; autocannon, 50 connections; baseline and repeat: median of 3 alternating 5 s rounds; API LOG_LEVEL=warn)', [
      baseline,
      { name: `GET /v1/predict, first-time, window kept (${keptUsers.length})`, result: firstTime },
      { name: `GET /v1/predict, first-time after an event (${changedUsers.length})`, result: firstAfterEvent },
      repeat,
      { name: 'GET /v1/predict at 300 req/s, after an event, 10 s', result: steady },
    ]);
    ratioLine('throughput ratio first-time (kept) / baseline', firstTime.requestsPerSecond, baseline.result.requestsPerSecond, '>= 0.35');
    ratioLine('throughput ratio first-time (after an event) / baseline', firstAfterEvent.requestsPerSecond, baseline.result.requestsPerSecond, '>= 0.35');
    ratioLine('throughput ratio repeat / baseline', repeat.result.requestsPerSecond, baseline.result.requestsPerSecond, '>= 0.6');
    console.log(
      `${`POST /v1/predict/batch, first-time users/s`.padEnd(44)}${batchFirstTime.usersPerSecond.toFixed(0).padStart(10)}   ` +
        `(${batchUsers.length} users, windows kept, ${BATCH_SIZE} per request, ${BATCH_CONCURRENCY} in flight; mean ${batchFirstTime.meanRequestMs.toFixed(0)} ms per request)`,
    );
    ratioLine('per-user throughput batch / GET first-time (kept)', batchFirstTime.usersPerSecond, firstTime.requestsPerSecond, '>= 10');
    console.log(`${'p99 at 300 req/s (open loop), ms'.padEnd(44)}${steady.p99Ms.toFixed(1).padStart(10)}   target <= 10`);
    console.log(`${'raw session.run (1 row, gbdt), mean µs'.padEnd(44)}${raw.meanUs.toFixed(1).padStart(10)}   p99 ${raw.p99Us.toFixed(1)} µs`);
    console.log(`${'predictions logged during the run'.padEnd(44)}${logged.n.padStart(10)}   (${users.length} users × ${MODELS.length} models; repeats are not logged again)`);
  } finally {
    await Promise.all([api.stop(), bare.stop(), worker.stop()]);
  }
});

/** POST /v1/predict/batch over the users, BATCH_SIZE per request and BATCH_CONCURRENCY requests in flight; every user must be answered by every model. */
async function predictInBatches(baseUrl: string, token: string, users: string[]): Promise<{ usersPerSecond: number; meanRequestMs: number }> {
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
