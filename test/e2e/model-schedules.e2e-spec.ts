import { Queue } from 'bullmq';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { type RunningProcess, startWorker } from '../support/processes';
import { withApiSuite } from '../support/suite';

/** A schedule fires at most once a minute. */
describe('model schedules', () => {
  const t = withApiSuite('model_schedules');
  const admin = () => ({ token: t.org.token.secret });
  const post = (body: Record<string, unknown>) =>
    request<{ id: string; error: string; details: Array<{ path: string }> }>(`${t.api.baseUrl}/v1/models`, { ...admin(), method: 'POST', body });

  it.each(['* * * * * *', '*/2 * * * * *', '0 * * * * *', '0 0 3 * * * 2030', '@every 1s', '* * * *'])('refuses the schedule %p with 400', async (schedule) => {
    const answer = await post({ name: 'too_often', targetEvent: 'checkout', schedule });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_request');
    expect(answer.body.details.map((d) => d.path)).toEqual(['schedule']);
    expect(await t.suite.sql(`SELECT id FROM models WHERE name = 'too_often'`)).toEqual([]);
  });

  it('accepts five-field schedules', async () => {
    for (const [name, schedule] of [['every_minute', '* * * * *'], ['nightly', '0 3 * * *'], ['weekdays', '*/15 9-17 * * 1-5']]) {
      expect((await post({ name, targetEvent: 'checkout', schedule })).status).toBe(200);
    }
  });

  it('a sub-minute schedule stored before the fix is registered at most once a minute when the worker starts', async () => {
    // As left by an older release: the row and its BullMQ job scheduler firing every second.
    const modelId = 'mdl_legacyschedule01';
    await t.suite.sql(
      `INSERT INTO models (id, organization_id, name, target_event, horizon_days, algorithm, labels, schedule)
       VALUES ($1, $2, 'legacy_every_second', 'checkout', 7, 'logistic', ARRAY['unlikely','likely'], '* * * * * *')`,
      [modelId, t.org.organization.id],
    );
    const training = new Queue('training', { connection: { url: t.suite.env.REDIS_URL }, prefix: `${t.suite.env.REDIS_PREFIX}bull` });
    let worker: RunningProcess | undefined;
    try {
      await training.upsertJobScheduler(
        `model-schedule:${modelId}`,
        { pattern: '* * * * * *', tz: 'UTC' },
        { name: 'models.scheduled-retrain', data: { organizationId: t.org.organization.id, modelId } },
      );
      worker = await startWorker(t.suite.env);
      // The worker registers the model's schedule again; until then the per-second one fires (each run fails fast: no events).
      await eventually('the schedule registered again with five fields', async () => {
        const scheduler = await training.getJobScheduler(`model-schedule:${modelId}`);
        expect(scheduler?.pattern?.trim().split(/\s+/)).toHaveLength(5);
        return true;
      }, 30_000);
      const runs = worker.output().split('\n').filter((line) => line.includes('training run started') && line.includes(modelId));
      expect(runs.length).toBeLessThanOrEqual(1);
    } finally {
      await worker?.stop();
      await training.close();
    }
  });
});
