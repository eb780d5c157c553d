import type { TestSuite } from './suite';

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
