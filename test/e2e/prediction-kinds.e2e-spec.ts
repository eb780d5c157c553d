import { type ExplainableModel, explainableModelOf } from '@foresight/models';
import type { Prediction } from '@foresight/predictions';
import { request } from '../support/http';
import { cliJson, type RunningProcess, startWorker } from '../support/processes';
import { withApiSuite } from '../support/suite';
import { promotionRunsDone, settledModel } from '../support/training';

type Explanation = NonNullable<Prediction['explanation']>;

/**
 * The two kinds beyond `event`, end to end on the SaaS demo (its users slip away week by week, and
 * buy credits): created through the API, trained by the worker, served by GET /v1/predict and the
 * batch, scored in bulk after promotion.
 */
describe('prediction kinds: inactivity and value', () => {
  // The seed goes through ingestion, under the organization's rate limit: room for it and the predictions after.
  const t = withApiSuite('prediction_kinds', ['--rate-limit', '100000', '--burst', '200000']);
  let worker: RunningProcess;
  const models: Record<'churn' | 'spend', string> = { churn: '', spend: '' };

  const token = () => t.org.token.secret;
  const create = (body: Record<string, unknown>) => request<Record<string, unknown>>(`${t.api.baseUrl}/v1/models`, { token: token(), method: 'POST', body });
  const predict = (userId: string) =>
    request<{ predictions: Prediction[] }>(`${t.api.baseUrl}/v1/predict?userId=${encodeURIComponent(userId)}&explain=true`, { token: token() });

  beforeAll(async () => {
    // 1,400 users: ECE is measured on the validation rows, and on 700 users' (2,200-2,800 rows) it read 0.015-0.031
    // from one seeding to the next (the data moves with the time of day); on 1,400 users' (4,100-5,400) 0.005-0.016.
    await cliJson(t.suite.env, ['demo', 'seed', '--org', t.org.organization.id, '--users', '1400', '--days', '45', '--intent-signal', 'saas']);
    worker = await startWorker(t.suite.env);
  }, 600_000);

  afterAll(async () => {
    await worker?.stop();
  });

  it('refuses fields a kind does not take, naming each, in the CONTRACT error shape', async () => {
    const refusals: Array<[Record<string, unknown>, string[]]> = [
      [{ name: 'churn_bad', kind: 'inactivity', targetEvent: 'feature_used' }, ['targetEvent']],
      [{ name: 'spend_bad', kind: 'value', targetEvent: 'credits_purchased' }, ['valueProperty']],
      [{ name: 'spend_bad', kind: 'value', valueProperty: 'amountEur' }, ['targetEvent']],
      [{ name: 'event_bad', targetEvent: 'plan_upgraded', valueProperty: 'amountEur', activeDays: 3 }, ['valueProperty', 'activeDays']],
      [{ name: 'kind_bad', kind: 'revenue', targetEvent: 'plan_upgraded' }, ['kind']],
    ];
    for (const [body, paths] of refusals) {
      const refused = await create(body);
      expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_request', message: expect.any(String) } });
      expect((refused.body.details as Array<{ path: string }>).map((d) => d.path)).toEqual(paths);
    }
    const [{ n }] = await t.suite.sql<{ n: string }>('SELECT count(*) AS n FROM models WHERE organization_id = $1', [t.org.organization.id]);
    expect(Number(n)).toBe(0);
  });

  it('creates, trains and describes one model of each kind, calibrated, with the value figures', async () => {
    const churn = await create({ name: 'churn_7d', kind: 'inactivity', horizonDays: 7 });
    expect(churn).toMatchObject({ status: 200, body: { kind: 'inactivity', targetEvent: null, activeDays: 7, valueProperty: null, labels: ['stays', 'churns'], status: 'untrained' } });
    const spend = await create({ name: 'credits_7d', kind: 'value', targetEvent: 'credits_purchased', valueProperty: 'amountEur', horizonDays: 7 });
    expect(spend).toMatchObject({ status: 200, body: { kind: 'value', targetEvent: 'credits_purchased', valueProperty: 'amountEur', activeDays: null, labels: ['unlikely', 'likely'] } });
    models.churn = churn.body.id as string;
    models.spend = spend.body.id as string;
    for (const modelId of Object.values(models)) {
      expect((await request(`${t.api.baseUrl}/v1/models/retrain`, { token: token(), method: 'POST', body: { modelId } })).status).toBe(200);
    }

    const churnDetails = await settledModel(t.api.baseUrl, token(), models.churn, worker, 600_000);
    expect(churnDetails).toMatchObject({ status: 'active', version: 1, lastError: null, mae: null, rmse: null, r2: null });
    const dormant = churnDetails.dormantUsers as { churnRate: number; rows: number };
    expect(dormant.rows).toBeGreaterThan(0);
    expect(dormant.churnRate).toBeGreaterThan(0);
    expect(dormant.churnRate).toBeLessThan(1);
    expect(churnDetails.auc as number).toBeGreaterThan(0.6);

    const spendDetails = await settledModel(t.api.baseUrl, token(), models.spend, worker, 600_000);
    expect(spendDetails).toMatchObject({ status: 'active', version: 1, lastError: null, dormantUsers: null });
    for (const metric of ['mae', 'rmse', 'r2', 'intervalCoverage', 'expectedIntervalCoverage'] as const) expect(spendDetails[metric]).toEqual(expect.any(Number));
    expect(spendDetails.mae as number).toBeGreaterThan(0);
    expect(spendDetails.rmse as number).toBeGreaterThanOrEqual(spendDetails.mae as number);
    // Better than predicting every user the mean, and intervals that hold the share of users' sums the model expects them to.
    expect(spendDetails.r2 as number).toBeGreaterThan(0);
    expect(Math.abs((spendDetails.intervalCoverage as number) - (spendDetails.expectedIntervalCoverage as number))).toBeLessThan(0.05);
    expect(spendDetails.auc as number).toBeGreaterThan(0.6);

    const versions = await t.suite.sql<{ model_id: string; calibration_error: number; target: { kind: string } | null; manifest: { targetEvent?: string; names: string[] } }>(
      `SELECT model_id, (metrics->>'calibrationError')::float8 AS calibration_error, target, manifest FROM model_versions WHERE organization_id = $1`,
      [t.org.organization.id],
    );
    expect(versions).toHaveLength(2);
    for (const version of versions) expect(version.calibration_error).toBeLessThanOrEqual(0.03);
    const churnVersion = versions.find((v) => v.model_id === models.churn);
    expect(churnVersion?.target?.kind).toBe('inactivity');
    expect(churnVersion?.manifest.targetEvent).toBeUndefined();
    expect(churnVersion?.manifest.names).not.toContain('days_since_target_event');
    expect(versions.find((v) => v.model_id === models.spend)?.target?.kind).toBe('value');
  }, 1_200_000);

  it('predicts each kind for active and long-inactive users alike, explanations adding up, the batch answering the same', async () => {
    const users = async (where: string) =>
      (
        await t.suite.sql<{ user_id: string }>(
          `SELECT user_id FROM events WHERE organization_id = $1 AND user_id IS NOT NULL GROUP BY user_id HAVING ${where} ORDER BY user_id LIMIT 3`,
          [t.org.organization.id],
        )
      ).map((row) => row.user_id);
    const active = await users(`max(occurred_at) > now() - interval '2 days'`);
    // Gone for over two weeks, well beyond the churn model's 7 active days.
    const gone = await users(`max(occurred_at) < now() - interval '15 days'`);
    expect(active).toHaveLength(3);
    expect(gone.length).toBeGreaterThan(0);
    const graphs = new Map(
      (
        await t.suite.sql<{ model_id: string; onnx: Buffer }>(`SELECT v.model_id, v.onnx FROM model_versions v JOIN models m ON m.serving_version_id = v.id WHERE m.organization_id = $1`, [
          t.org.organization.id,
        ])
      ).map((row) => [row.model_id, explainableModelOf(row.onnx) as ExplainableModel]),
    );
    const { dormantUsers } = (await request<{ dormantUsers: { churnRate: number } }>(`${t.api.baseUrl}/v1/models/${models.churn}`, { token: token() })).body;

    for (const userId of [...active, ...gone]) {
      const answer = await predict(userId);
      expect(answer.status).toBe(200);
      const byModel = new Map(answer.body.predictions.map((p) => [p.modelId, p]));
      const churn = byModel.get(models.churn) as Prediction;
      const spend = byModel.get(models.spend) as Prediction;
      expect(['stays', 'churns']).toContain(churn.label);
      expect(churn.confidence).toBeGreaterThanOrEqual(0.5);
      expect(churn.confidence).toBeLessThanOrEqual(1);
      const churnProbability = churn.label === 'churns' ? churn.confidence : 1 - churn.confidence;
      const explanation = churn.explanation as Explanation;
      const score = explanation.contributions.reduce((sum, c) => sum + c.contribution, explanation.base);
      if (gone.includes(userId)) {
        // Outside the population the model learned: such users' churn rate, all of it in the base.
        expect(churn.dormant).toBe(true);
        expect(churnProbability).toBeCloseTo(dormantUsers.churnRate, 6);
        expect(explanation.contributions).toEqual([]);
        expect(1 / (1 + Math.exp(-score))).toBeCloseTo(churnProbability, 6);
      } else {
        expect(churn.dormant).toBeUndefined();
        const { calibration } = graphs.get(models.churn) as ExplainableModel;
        expect(Math.abs(1 / (1 + Math.exp(-(calibration.a * score + calibration.b))) - churnProbability)).toBeLessThan(1e-5);
      }

      // The value model's label and confidence answer "any credits at all"; its explanation is of that probability.
      expect(['unlikely', 'likely']).toContain(spend.label);
      expect(spend.value).toEqual(expect.any(Number));
      const interval = spend.interval as { p10: number; p90: number };
      expect(spend.value as number).toBeGreaterThanOrEqual(0);
      expect(interval.p10).toBeGreaterThanOrEqual(0);
      expect(interval.p90).toBeGreaterThanOrEqual(interval.p10);
      const anyProbability = spend.label === 'likely' ? spend.confidence : 1 - spend.confidence;
      // Below 10% chance of any credits, p10 is nothing; one who surely buys has a p10 above nothing.
      if (anyProbability < 0.9) expect(interval.p10).toBe(0);
      const spendExplanation = spend.explanation as Explanation;
      const spendScore = spendExplanation.contributions.reduce((sum, c) => sum + c.contribution, spendExplanation.base);
      const { calibration } = graphs.get(models.spend) as ExplainableModel;
      expect(Math.abs(1 / (1 + Math.exp(-(calibration.a * spendScore + calibration.b))) - anyProbability)).toBeLessThan(1e-5);
    }

    const batch = await request<{ results: Array<{ userId: string; predictions: Prediction[] }> }>(`${t.api.baseUrl}/v1/predict/batch`, {
      token: token(),
      method: 'POST',
      body: { userIds: [...active, ...gone] },
    });
    expect(batch.status).toBe(200);
    for (const [i, userId] of [...active, ...gone].entries()) {
      const plain = await request<{ predictions: Prediction[] }>(`${t.api.baseUrl}/v1/predict?userId=${encodeURIComponent(userId)}`, { token: token() });
      expect(batch.body.results[i]).toEqual({ userId, predictions: plain.body.predictions });
      expect(plain.body.predictions.find((p) => p.modelId === models.spend)?.interval).toEqual(expect.objectContaining({ p10: expect.any(Number), p90: expect.any(Number) }));
    }
  }, 300_000);

  it('scores every user in bulk after promotion with the kinds\' labels', async () => {
    await promotionRunsDone(t.suite, t.org.organization.id, 600_000);
    const rows = await t.suite.sql<{ model_id: string; label: string; n: string }>(
      `SELECT model_id, label, count(*) AS n FROM predictions WHERE organization_id = $1 AND scoring_run IS NOT NULL GROUP BY 1, 2`,
      [t.org.organization.id],
    );
    const labelsOf = (modelId: string) => rows.filter((r) => r.model_id === modelId).map((r) => r.label);
    expect(labelsOf(models.churn).every((label) => ['stays', 'churns'].includes(label))).toBe(true);
    expect(labelsOf(models.churn).length).toBeGreaterThan(0);
    expect(labelsOf(models.spend).every((label) => ['unlikely', 'likely'].includes(label))).toBe(true);
    // The churn model's bulk run holds users gone beyond 7 days too: they are answered, at their rate.
    const [{ gone }] = await t.suite.sql<{ gone: string }>(
      `SELECT count(*) AS gone FROM predictions p WHERE p.organization_id = $1 AND p.model_id = $2 AND p.scoring_run IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM events e WHERE e.organization_id = p.organization_id AND e.user_id = p.user_id AND e.occurred_at > p.predicted_at - interval '7 days')`,
      [t.org.organization.id, models.churn],
    );
    expect(Number(gone)).toBeGreaterThan(0);

    // The log keeps the value model's expected sum and interval: exported (bulk COPY and served rows alike) and in the user's export.
    const exported = await request<Array<{ id: string; modelId: string; userId: string; value?: number; interval?: { p10: number; p90: number } }>>(
      `${t.api.baseUrl}/v1/export/predictions?since=${new Date().toISOString().slice(0, 10)}&limit=100000`,
      { token: token() },
    );
    const spendRows = exported.body.filter((row) => row.modelId === models.spend);
    expect(spendRows.length).toBeGreaterThan(0);
    for (const row of spendRows) {
      expect(row.value).toBeGreaterThanOrEqual(0);
      expect(row.interval?.p90).toBeGreaterThanOrEqual(row.interval?.p10 as number);
    }
    expect(exported.body.filter((row) => row.modelId === models.churn).every((row) => !('value' in row) && !('interval' in row))).toBe(true);
    const [first] = spendRows;
    const ownExport = await request<{ predictions: Array<{ id: string; value: number | null; interval: { p10: number; p90: number } | null }> }>(
      `${t.api.baseUrl}/v1/users/export?userId=${encodeURIComponent(first.userId)}`,
      { token: token() },
    );
    expect(ownExport.body.predictions.find((p) => p.id === first.id)).toMatchObject({ value: first.value, interval: first.interval });
    expect(ownExport.body.predictions.filter((p) => p.value === null).every((p) => p.interval === null)).toBe(true);
  }, 900_000);
});
