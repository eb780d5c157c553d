// npm run bench:export — GET /v1/export/predictions over 1,000,000 logged predictions: rows/s and the
// API's peak RSS, beside a raw COPY of the same rows in the same order by psql in the same run.
import { spawnSync } from 'node:child_process';
import { seededSince, seedPredictionLog } from '../support/prediction-log';
import { startApi, statusKiB } from '../support/processes';
import { benchmark } from './support/benchmark';

const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 1_000_000);
const PAGE = 100_000;

benchmark('bench_export', async (suite) => {
  const { organization, token } = await suite.createOrganization('Bench', ['--rate-limit', '100000000', '--burst', '200000000']);
  await seedPredictionLog(suite, organization.id, ROWS);
  const since = seededSince();

  const copy = rawCopy(suite.env.DATABASE_URL, organization.id);
  const api = await startApi({ ...suite.env, LOG_LEVEL: 'warn' });
  try {
    const auth = { authorization: `Bearer ${token.secret}` };
    const ndjson = await timed(async () => {
      const response = await fetch(`${api.baseUrl}/v1/export/predictions?since=${since}`, { headers: { ...auth, accept: 'application/x-ndjson' } });
      return countLines(response);
    });
    const paged = await timed(async () => {
      let rows = 0;
      let url: string | undefined = `${api.baseUrl}/v1/export/predictions?since=${since}&limit=${PAGE}`;
      while (url) {
        const response: Response = await fetch(url, { headers: auth });
        rows += (JSON.parse(await response.text()) as unknown[]).length;
        url = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
      }
      return rows;
    });
    const peakMb = statusKiB(api.child.pid as number, 'VmHWM') / 1024;
    for (const [name, result] of [['NDJSON', ndjson], ['paged JSON', paged]] as const) {
      if (result.rows !== ROWS) throw new Error(`${name} export returned ${result.rows} rows, expected ${ROWS}`);
    }

    console.log(`\nbench:export (${ROWS} predictions; API LOG_LEVEL=warn; wall time of the whole download)`);
    console.log(`${'case'.padEnd(48)}${'rows/s'.padStart(10)}${'seconds'.padStart(9)}${'ratio'.padStart(8)}`);
    const line = (name: string, r: { rows: number; seconds: number }) =>
      console.log(`${name.padEnd(48)}${(r.rows / r.seconds).toFixed(0).padStart(10)}${r.seconds.toFixed(2).padStart(9)}${(r.rows / r.seconds / (copy.rows / copy.seconds)).toFixed(2).padStart(8)}`);
    line('baseline: raw COPY TO STDOUT (psql, CSV)', copy);
    line('GET /v1/export/predictions, NDJSON stream', ndjson);
    line(`GET /v1/export/predictions, JSON pages of ${PAGE}`, paged);
    console.log(`${'API peak RSS (VmHWM), MB'.padEnd(48)}${peakMb.toFixed(0).padStart(10)}   target < 300`);
    console.log('target: >= 100000 rows/s');
  } finally {
    await api.stop();
  }
});

async function timed(work: () => Promise<number>): Promise<{ rows: number; seconds: number }> {
  const started = performance.now();
  const rows = await work();
  return { rows, seconds: (performance.now() - started) / 1000 };
}

async function countLines(response: Response): Promise<number> {
  let lines = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) for (const byte of chunk) if (byte === 10) lines++;
  return lines;
}

/** The same rows in the same order straight out of Postgres: the floor any export is measured against. */
function rawCopy(databaseUrl: string, organizationId: string): { rows: number; seconds: number } {
  const sql = `COPY (SELECT id, user_id, model_name, model_id, version, label, confidence, predicted_at FROM predictions
                 WHERE organization_id = '${organizationId}' ORDER BY predicted_at, id) TO STDOUT WITH (FORMAT csv)`;
  const started = performance.now();
  const result = spawnSync('psql', [databaseUrl, '-qAt', '-c', sql], { maxBuffer: 1024 * 1024 * 1024, encoding: 'utf8' });
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== 0) throw new Error(`psql COPY failed: ${result.stderr}`);
  return { rows: result.stdout.split('\n').filter(Boolean).length, seconds };
}
