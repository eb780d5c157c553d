// npm run bench:events — durable ingestion through POST /v1/events beside two in-run baselines: PostgreSQL's own
// bulk load of the same rows (raw COPY, the limit of the write path) and a bare Fastify single-row INSERT route.
// For raw COPY and batched ingestion it also prints the CPU time per event of each process involved (Postgres,
// the API, the load generator, the COPY client), measured from /proc, and the throughput those costs allow
// when every core of the machine does nothing else: the analysis behind the events/s target.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { startApi, startServer } from '../support/processes';
import { benchmark } from './support/benchmark';
import { CpuPerUnit, postgresProcesses, processSide } from './support/cpu';
import { interleaved, load, type LoadResult, ratioLine, report } from './support/measure';

const BATCH = 500;
/** As many COPY streams as the API has batch clients: enough that the baseline is the database's limit, not one client's. */
const COPY_STREAMS = 8;

/** The batched-ingestion load: autocannon, closed loop, in this process, on the same 2 cores as the API and Postgres. */
const BATCH_CLIENTS = 8;

/** No messageId: the server generates one per event, so every request stores new events. */
const oneEvent = (i: number) => ({
  event: i % 4 === 0 ? 'scroll' : 'click',
  userId: `bench-user-${i % 1000}`,
  properties: i % 4 === 0 ? { depth: 0.6, dwellMs: 900 } : { button: 'buy', plan: 'pro' },
});

benchmark('bench_events', async (suite) => {
  const { organization, token } = await suite.createOrganization('Bench', ['--rate-limit', '100000000', '--burst', '200000000']);
  const api = await startApi({ ...suite.env, LOG_LEVEL: 'warn' });
  const bare = await startServer(['-r', '@swc-node/register', join(__dirname, 'baselines', 'bare-insert.server.ts')], {
    DATABASE_URL: suite.env.DATABASE_URL,
  });
  const copy = await startServer(['-r', '@swc-node/register', join(__dirname, 'baselines', 'raw-copy.server.ts')], {
    DATABASE_URL: suite.env.DATABASE_URL,
    ENCRYPTION_KEY: suite.env.ENCRYPTION_KEY,
    ORGANIZATION_ID: organization.id,
    COPY_STREAMS: String(COPY_STREAMS),
  });
  const postgres = postgresProcesses(suite);
  const copyCpu = new CpuPerUnit({ postgres, 'COPY client': processSide(copy.child.pid) }, 'events');
  const ingestCpu = new CpuPerUnit({ postgres, API: processSide(api.child.pid), 'load generator': processSide(process.pid) }, 'events');
  /** The events a round of `seconds` handled, at BATCH per request (or committed chunk). */
  const eventsIn = (seconds: number) => (result: LoadResult) => result.requestsPerSecond * seconds * BATCH;
  /** One round of the COPY baseline, as committed 500-row chunks per second (comparable with 500-event requests). */
  const rawCopy = (seconds: number) => copyCpu.measure(() => copyRound(seconds), eventsIn(seconds));
  const copyRound = async (seconds: number): Promise<LoadResult> => {
    const response = await fetch(`${copy.baseUrl}/copy`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seconds }) });
    if (!response.ok) throw new Error(`raw COPY baseline answered ${response.status}: ${await response.text()}`);
    const run = (await response.json()) as { chunks: number; seconds: number; p50Ms: number; p99Ms: number };
    return { requestsPerSecond: run.chunks / run.seconds, p50Ms: run.p50Ms, p99Ms: run.p99Ms, non2xx: 0, errors: 0 };
  };
  try {
    const json = { 'content-type': 'application/json' };
    const auth = { ...json, authorization: `Bearer ${token.secret}` };
    const single = JSON.stringify(oneEvent(1));
    const batch = JSON.stringify(Array.from({ length: BATCH }, (_, i) => oneEvent(i)));
    const post = (headers: Record<string, string>, body: string | Buffer, connections: number) => ({ method: 'POST' as const, headers, body, connections });
    // As mobile SDKs send them (RudderStack gzips by default, analytics-kotlin always): the same batch, compressed.
    const gzipped = gzipSync(batch);
    const batched = (seconds: number) =>
      ingestCpu.measure(() => load(`${api.baseUrl}/v1/events`, { ...post(auth, batch, BATCH_CLIENTS), durationSeconds: seconds }), eventsIn(seconds));

    const [limit, baseline, singles, batches, gzipBatches] = await interleaved([
      { name: `baseline: raw COPY, ${BATCH}-row commits (${COPY_STREAMS} streams)`, run: rawCopy },
      { name: 'baseline: bare Fastify, one INSERT', url: `${bare.baseUrl}/insert`, options: post(json, single, 50) },
      { name: 'POST /v1/events, 1 event', url: `${api.baseUrl}/v1/events`, options: post(auth, single, 50) },
      { name: `POST /v1/events, ${BATCH} events (${BATCH_CLIENTS} clients)`, run: batched },
      { name: `POST /v1/events, ${BATCH} events gzip (${BATCH_CLIENTS} clients)`, url: `${api.baseUrl}/v1/events`, options: post({ ...auth, 'content-encoding': 'gzip' }, gzipped, BATCH_CLIENTS) },
    ]);
    for (const { name, result } of [singles, batches, gzipBatches]) {
      if (result.non2xx + result.errors > 0) throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    }
    const stored = await suite.sql<{ n: string }>('SELECT count(*) AS n FROM events');
    report('bench:events (autocannon, median of 3 alternating 5 s rounds; every event durable before its response)', [limit, baseline, singles, batches, gzipBatches]);
    const copyPerSecond = limit.result.requestsPerSecond * BATCH;
    const eventsPerSecond = batches.result.requestsPerSecond * BATCH;
    console.log(`${'raw COPY baseline, events/s'.padEnd(44)}${copyPerSecond.toFixed(0).padStart(10)}   (events + messageId keys, same rows, same run)`);
    console.log(`${'batched ingest, events/s'.padEnd(44)}${eventsPerSecond.toFixed(0).padStart(10)}   target >= 50000`);
    console.log(`load generator: autocannon in the bench process, ${BATCH_CLIENTS} connections, closed loop, ${BATCH} events (${batch.length} bytes) per request`);
    console.log(`CPU per event, raw COPY (all rounds):       ${copyCpu.summary(availableParallelism())}`);
    console.log(`CPU per event, batched ingest (all rounds): ${ingestCpu.summary(availableParallelism())}`);
    console.log(`${'single-event POST, requests/s'.padEnd(44)}${singles.result.requestsPerSecond.toFixed(0).padStart(10)}   target >= 2000, p99 ${singles.result.p99Ms} ms`);
    ratioLine('ratio single POST / baseline INSERT route', singles.result.requestsPerSecond, baseline.result.requestsPerSecond, '(in-run context)');
    ratioLine('ratio batched events/s / raw COPY events/s', eventsPerSecond, copyPerSecond, '>= 0.5');
    ratioLine('ratio gzip batches / plain batches', gzipBatches.result.requestsPerSecond, batches.result.requestsPerSecond, `>= 0.8 (${batch.length} -> ${gzipped.length} bytes)`);
    ratioLine('ratio batched events/s / baseline rows/s', eventsPerSecond, baseline.result.requestsPerSecond, '(in-run context)');
    console.log(`${'events stored during the run (API + COPY)'.padEnd(44)}${stored[0].n.padStart(10)}`);
  } finally {
    await Promise.all([api.stop(), bare.stop(), copy.stop()]);
  }
});
