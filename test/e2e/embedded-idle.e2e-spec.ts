import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedSql } from '../support/embedded-sql';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { cliJson, type RunningProcess, startApi } from '../support/processes';
import { REDIS_URL } from '../support/services';
import { type KeepsTarget, ServingKeeps } from '../support/serving-keeps';
import { deleteRedisKeys, type OrganizationWithToken } from '../support/suite';
import { Answers, idle, lookUpUser, predictRound } from '../support/traffic';
import { completedScoringRun, settledModel } from '../support/training';

/** Longer than DATABASE_IDLE_TIMEOUT=1s: the pool closes its connection in every gap. */
const SHORT_GAP_MS = 2_500;
/** Longer than the default DATABASE_IDLE_TIMEOUT (10 s). */
const DEFAULT_GAP_MS = 12_000;
const USERS_PER_ROUND = 10;

/**
 * The embedded default (no DATABASE_URL) after idle time. PGlite is served on a unix socket, and every
 * client connection shares its ONE session: when the pool closed an idle connection and opened a new
 * one, the statements it had prepared were still in that session, and every uncached GET /v1/predict
 * answered 500 `prepared statement "…" already exists` after the API had sat idle for 10 s.
 */
describe('embedded mode (PGlite) across idle gaps', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'foresight-embedded-idle-'));
  const env = { DATA_DIR: dataDir, REDIS_URL, REDIS_PREFIX: `e2e:embedded_idle:${randomBytes(4).toString('hex')}:`, SCORING_CHUNK_USERS: '50' };
  const answers = new Answers();
  let api: RunningProcess | undefined;
  let org: OrganizationWithToken;
  let modelId: string;
  let audienceId: string;
  let users: string[];
  const token = () => org.token.secret;
  const url = (path: string) => `${api?.baseUrl}/v1${path}`;
  /** Users no process has answered yet: each round's are first-time requests. */
  const fresh = (count: number) => users.splice(0, count);

  const exportPredictions = () =>
    answers.expect('GET /v1/export/predictions', request<unknown[]>(url(`/export/predictions?since=${new Date().toISOString().slice(0, 10)}&limit=100000`), { token: token() }));
  const scoringRun = () => completedScoringRun(api?.baseUrl as string, token(), modelId, answers);

  afterEach(() => {
    expect(answers.problems({ api })).toEqual([]);
    console.log(`embedded idle suite: ${answers.total} answers so far, all as expected`);
  });

  afterAll(async () => {
    await api?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await deleteRedisKeys(env.REDIS_PREFIX);
  });

  it('seeds, trains and bulk-scores with DATABASE_IDLE_TIMEOUT=1s', async () => {
    org = await cliJson<OrganizationWithToken>(env, ['org', 'create', '--name', 'Embedded idle', '--rate-limit', '100000', '--burst', '200000']);
    api = await startApi({ ...env, DATABASE_IDLE_TIMEOUT: '1s' });
    // Through the API's socket, as a user runs the CLI beside the service.
    await cliJson(env, ['demo', 'seed', '--org', org.organization.id, '--users', '250', '--days', '30']);
    await idle(SHORT_GAP_MS);
    const model = await answers.expect('POST /v1/models', request<{ id: string }>(url('/models'), { token: token(), method: 'POST', body: { name: 'checkout_7d', targetEvent: 'checkout', algorithm: 'logistic' } }));
    modelId = model.body.id;
    await answers.expect('POST /v1/models/retrain', request(url('/models/retrain'), { token: token(), method: 'POST', body: { modelId } }));
    expect(await settledModel(api.baseUrl, token(), modelId, api, 180_000)).toMatchObject({ status: 'active', lastError: null });
    await idle(SHORT_GAP_MS);
    const run = await scoringRun();
    expect(run.scored).toBe(run.total);
    const exported = await exportPredictions();
    users = [...new Set((exported.body as Array<{ userId: string }>).map((p) => p.userId))].sort();
    expect(users.length).toBeGreaterThanOrEqual(10 * USERS_PER_ROUND);
    const audience = await answers.expect(
      'POST /v1/audiences',
      request<{ id: string }>(url('/audiences'), { token: token(), method: 'POST', body: { name: 'likely buyers', modelId, label: 'likely', rule: { topPercent: 20 } } }),
    );
    audienceId = audience.body.id;
  }, 300_000);

  it('serves predictions, user lookups and exports across gaps longer than the 1 s idle timeout, then trains and scores again', async () => {
    if (!api) throw new Error('the first test did not start the API');
    for (let round = 0; round < 3; round++) {
      await idle(SHORT_GAP_MS);
      await predictRound(api.baseUrl, token(), fresh(USERS_PER_ROUND), answers);
      await idle(SHORT_GAP_MS);
      await answers.expect('POST /v1/predict/batch', request(url('/predict/batch'), { token: token(), method: 'POST', body: { userIds: fresh(USERS_PER_ROUND) } }));
      await idle(SHORT_GAP_MS);
      await lookUpUser(api.baseUrl, token(), fresh(1)[0], answers);
      await idle(SHORT_GAP_MS);
      await exportPredictions();
    }
    await idle(SHORT_GAP_MS);
    await answers.expect('POST /v1/models/retrain', request(url('/models/retrain'), { token: token(), method: 'POST', body: { modelId } }));
    expect(await settledModel(api.baseUrl, token(), modelId, api, 180_000)).toMatchObject({ status: 'active', lastError: null });
    await idle(SHORT_GAP_MS);
    const run = await scoringRun();
    expect(run.scored).toBe(run.total);
    // The run recomputes the audience (a job after the run completes), then its members are read after another gap.
    const audience = await eventually('the audience computed with the run', async () => {
      const got = await answers.expect('GET /v1/audiences/:id', request<{ size: number; history: Array<{ runId: string; size: number }> }>(url(`/audiences/${audienceId}`), { token: token() }));
      return got.body.history.some((computation) => computation.runId === run.id) ? got.body : undefined;
    }, 120_000);
    expect(audience.size).toBeGreaterThan(0);
    await idle(SHORT_GAP_MS);
    const members = await answers.expect('GET /v1/audiences/:id/members', request<unknown[]>(url(`/audiences/${audienceId}/members?limit=100000`), { token: token() }));
    expect(members.body).toHaveLength(audience.size);
    await idle(SHORT_GAP_MS);
    await predictRound(api.baseUrl, token(), fresh(USERS_PER_ROUND), answers);
  }, 300_000);

  it('keeps the windows serving reads, and serves them with the events stored since, across an idle gap and a restart', async () => {
    const target = (): KeepsTarget => ({
      baseUrl: api?.baseUrl as string,
      token: token(),
      answers,
      keptWindows: async (user) => (await embeddedSql(dataDir, 'SELECT 1 FROM user_windows WHERE organization_id = $1 AND user_id = $2', [org.organization.id, user])).length,
    });
    const keeps = await ServingKeeps.start(target(), 'embedded');
    await keeps.compare(target());
    await idle(DEFAULT_GAP_MS);
    await keeps.compare(target());
    // Restarted: nothing cached, the kept row and the event stored since read again.
    await api?.stop();
    api = await startApi(env);
    await keeps.compare(target());
  }, 120_000);

  it('after a restart, serves first-time predictions, retrains and scores after sitting idle longer than the default idle timeout (10 s)', async () => {
    await api?.stop();
    api = await startApi(env);
    await predictRound(api.baseUrl, token(), fresh(USERS_PER_ROUND), answers);
    await idle(DEFAULT_GAP_MS);
    await predictRound(api.baseUrl, token(), fresh(USERS_PER_ROUND), answers);
    await lookUpUser(api.baseUrl, token(), fresh(1)[0], answers);
    await exportPredictions();
    const trained = await answers.expect('GET /v1/models/:id', request<{ lastRetrained: string }>(url(`/models/${modelId}`), { token: token() }));
    await idle(DEFAULT_GAP_MS);
    await answers.expect('POST /v1/models/retrain', request(url('/models/retrain'), { token: token(), method: 'POST', body: { modelId } }));
    const retrained = await settledModel(api.baseUrl, token(), modelId, api, 180_000);
    expect(retrained).toMatchObject({ status: 'active', lastError: null });
    expect(retrained.lastRetrained).not.toBe(trained.body.lastRetrained);
    await idle(DEFAULT_GAP_MS);
    const run = await scoringRun();
    expect(run.scored).toBe(run.total);
  }, 420_000);
});
