import { performance } from 'node:perf_hooks';
import { finished } from 'node:stream/promises';
import { Client } from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { processCpuSeconds } from '../../support/processes';
import type { TestSuite } from '../../support/suite';

/** A logged prediction's columns but its time and run, which logEarlierRuns writes anew. */
const PREDICTION_COLUMNS = 'organization_id, user_id, model_id, model_name, version_id, version, label, positive, confidence, inference_ms';
const COLUMNS = `${PREDICTION_COLUMNS}, predicted_at, scoring_run`;

/**
 * The floor of writing the prediction log: rows already logged, picked by `selection` (the WHERE,
 * ORDER BY and LIMIT of a query over `predictions`), written again by raw COPY, `rowsPerStatement`
 * per statement (each committed), into the same table with the same indexes; then deleted. Returns
 * the wall-clock seconds and the CPU seconds of the Postgres backend that wrote them.
 */
export async function rawPredictionsWrite(
  databaseUrl: string,
  selection: string,
  rowsPerStatement: number,
): Promise<{ seconds: number; rows: number; postgresCpuSeconds: number }> {
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of pg.query(copyTo(`COPY (SELECT ${COLUMNS} FROM predictions ${selection}) TO STDOUT`))) chunks.push(chunk as Buffer);
    const lines = Buffer.concat(chunks).toString().split('\n').slice(0, -1);
    const [{ last, backend }] = (await pg.query<{ last: string; backend: number }>('SELECT max(id) AS last, pg_backend_pid() AS backend FROM predictions')).rows;
    const cpuBefore = processCpuSeconds(backend);
    const started = performance.now();
    for (let start = 0; start < lines.length; start += rowsPerStatement) {
      const copy = pg.query(copyFrom(`COPY predictions (${COLUMNS}) FROM STDIN`));
      copy.end(`${lines.slice(start, start + rowsPerStatement).join('\n')}\n`);
      await finished(copy);
    }
    const seconds = (performance.now() - started) / 1000;
    const postgresCpuSeconds = processCpuSeconds(backend) - cpuBefore;
    await pg.query('DELETE FROM predictions WHERE id > $1', [last]);
    return { seconds, rows: lines.length, postgresCpuSeconds };
  } finally {
    await pg.end();
  }
}

/**
 * The log as a daily job leaves it: the organization's logged predictions again for each of the
 * `days` days before them, a run's worth a day. Returns the rows added.
 */
export async function logEarlierRuns(suite: TestSuite, organizationId: string, days: number): Promise<number> {
  const [{ n }] = await suite.sql<{ n: string }>(
    `WITH earlier AS (
       INSERT INTO predictions (${COLUMNS})
       SELECT ${PREDICTION_COLUMNS}, predicted_at - make_interval(days => d), 'earlier-' || d
         FROM predictions CROSS JOIN generate_series(1, $2::int) d
        WHERE organization_id = $1
       RETURNING 1)
     SELECT count(*) AS n FROM earlier`,
    [organizationId, days],
  );
  return Number(n);
}
