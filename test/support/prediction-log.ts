import { eventually } from './eventually';
import { request } from './http';
import type { OrganizationWithToken, TestSuite } from './suite';

/**
 * `rows` logged predictions as /v1/predict writes them, spread over the day before now, 3 models,
 * 10,000 users: the export's input without training a model first.
 */
export async function seedPredictionLog(suite: TestSuite, organizationId: string, rows: number): Promise<void> {
  await suite.sql(
    `INSERT INTO predictions (organization_id, user_id, model_id, model_name, version_id, version, label, positive, confidence, inference_ms, predicted_at)
     SELECT $1, 'demo-' || lpad((i % 10000)::text, 6, '0'), 'mdl_bench' || (i % 3), 'model_' || (i % 3), 'ver_bench' || (i % 3), 1,
            CASE WHEN i % 4 = 0 THEN 'likely' ELSE 'unlikely' END, i % 4 = 0, 0.5 + (i % 500) / 1000.0, 0.05,
            now() - interval '1 day' + (i * (interval '1 day' / $2))
       FROM generate_series(1, $2) i`,
    [organizationId, rows],
  );
  await suite.sql('ANALYZE predictions');
}

/** The first day of an export that covers every seeded row. */
export function seededSince(): string {
  return new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
}

/**
 * Waits until everything the API process at `baseUrl` logged so far is written. The log is written
 * in order, in batches: once a fresh answer served after those rows is stored, so are they. The
 * answer is for `marker`, a user with events whom this process has not answered yet (a cached
 * answer is not logged; new events would have the worker re-score and log the user as well), of an
 * organization with a serving model. Only rows stamped while the request ran are this answer's.
 */
export async function predictionLogWritten(suite: TestSuite, baseUrl: string, org: OrganizationWithToken, marker: string): Promise<void> {
  const asked = new Date();
  const answer = await request<{ predictions: unknown[] }>(`${baseUrl}/v1/predict?userId=${marker}`, { token: org.token.secret });
  const answered = new Date();
  if (answer.status !== 200 || answer.body.predictions.length === 0) throw new Error(`no fresh prediction for the log's marker: ${answer.status} ${JSON.stringify(answer.body)}`);
  await eventually(`the prediction log to write the answer for ${marker}`, async () => {
    const [{ n }] = await suite.sql<{ n: string }>(
      `SELECT count(*) AS n FROM predictions WHERE organization_id = $1 AND user_id = $2 AND scoring_run IS NULL AND predicted_at BETWEEN $3 AND $4`,
      [org.organization.id, marker, asked, answered],
    );
    return Number(n) > 0 ? true : undefined;
  }, 10_000);
}
