import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { request } from '../support/http';
import { type RunningProcess, startApi, startWorker } from '../support/processes';
import { TestSuite } from '../support/suite';
import { learnablePopulation, promotionRunsDone, sendEvents, settledModel } from '../support/training';

const run = promisify(execFile);
const USERS = Array.from({ length: 20 }, (_, i) => `user-${i * 7}`);

/** What a restore must give back: answers read through the API, never from the database directly. */
interface Answers {
  predictions: unknown[];
  exported: unknown[];
  userExport: unknown;
  webhooks: unknown;
}

/**
 * The backup the README describes: pg_dump of a loaded database, restored into a fresh one, and the
 * service started on it with the same TOKEN_PEPPER and ENCRYPTION_KEY answers as before (the same
 * token authenticates, predictions, prediction export and a user's export with its sealed event
 * properties). Started with a wrong ENCRYPTION_KEY it refuses at start-up; a rotated key with the
 * earlier one in ENCRYPTION_PREVIOUS_KEYS still starts and reads.
 */
describe('backup and restore with pg_dump', () => {
  let source: TestSuite;
  let restored: TestSuite;
  let token: string;
  const dir = mkdtempSync(join(tmpdir(), 'foresight-backup-'));
  const started: RunningProcess[] = [];

  /**
   * The same reads in the same order on both databases: the export and the user's export first, since
   * every GET /v1/predict logs a prediction. What each answer stamps with its own moment is left out.
   */
  async function answersOf(baseUrl: string): Promise<Answers> {
    const exported = await request<Array<Record<string, unknown>>>(`${baseUrl}/v1/export/predictions?since=2000-01-01&limit=100000`, { token });
    const userExport = await request(`${baseUrl}/v1/users/export?userId=${USERS[0]}`, { token });
    const webhooks = await request(`${baseUrl}/v1/webhooks`, { token });
    expect([exported.status, userExport.status, webhooks.status]).toEqual([200, 200, 200]);
    const predictions: unknown[] = [];
    for (const userId of USERS) predictions.push(without(MOMENTS, (await request(`${baseUrl}/v1/predict?userId=${userId}`, { token })).body));
    return { predictions, exported: exported.body, userExport: without(MOMENTS, userExport.body), webhooks: webhooks.body };
  }

  beforeAll(async () => {
    source = await TestSuite.create('backup_source');
    const org = await source.createOrganization('Backed up');
    token = org.token.secret;
    const api = await startApi(source.env);
    const worker = await startWorker(source.env);
    started.push(api, worker);
    await sendEvents(api.baseUrl, token, learnablePopulation(300, 60));
    const model = await request<{ id: string }>(`${api.baseUrl}/v1/models`, { token, method: 'POST', body: { name: 'checkout', targetEvent: 'checkout' } });
    await request(`${api.baseUrl}/v1/models/retrain`, { token, method: 'POST', body: { modelId: model.body.id } });
    expect(await settledModel(api.baseUrl, token, model.body.id, worker, 600_000)).toMatchObject({ status: 'active' });
    await promotionRunsDone(source, org.organization.id, 600_000);
    // A webhook's signing secret is sealed at rest too.
    const webhook = await request(`${api.baseUrl}/v1/webhooks`, { token, method: 'POST', body: { url: 'https://example.com/foresight', events: ['model.retrained'] } });
    expect(webhook.status).toBe(200);
    await Promise.all([api.stop(), worker.stop()]);
  }, 900_000);

  afterAll(async () => {
    await Promise.all(started.map((p) => p.stop()));
    await source?.destroy();
    await restored?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('restores into a fresh database that answers as the original did, with the same keys', async () => {
    const dump = join(dir, 'foresight.dump');
    await run('pg_dump', ['--format=custom', '--no-owner', `--file=${dump}`, source.env.DATABASE_URL]);
    restored = await TestSuite.create('backup_restored', { migrate: false });
    await run('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=${restored.env.DATABASE_URL}`, dump]);
    const before = await answersOf((await startTracked(source.env)).baseUrl);

    // Same keys, a fresh Redis (a restore does not bring Redis back).
    const env = { ...restored.env, TOKEN_PEPPER: source.env.TOKEN_PEPPER, ENCRYPTION_KEY: source.env.ENCRYPTION_KEY };
    const after = await answersOf((await startTracked(env)).baseUrl);
    expect((before.predictions as Array<{ predictions: unknown[] }>).every((p) => p.predictions.length === 1)).toBe(true);
    expect(before.exported.length).toBeGreaterThan(0);
    expect(JSON.stringify(before.userExport)).toContain('pricing');
    // A prediction is made at its own moment (days since a user's last event): seconds later a linear
    // model's confidence moves in float32's last digits, and nothing else may differ.
    expect({ ...after, predictions: without(['confidence'], after.predictions) }).toEqual({ ...before, predictions: without(['confidence'], before.predictions) });
    const [was, is] = [confidencesOf(before), confidencesOf(after)];
    expect(is).toHaveLength(was.length);
    is.forEach((confidence, i) => expect(confidence).toBeCloseTo(was[i], 5));
  });

  it('refuses to start with a wrong ENCRYPTION_KEY, saying which key the data needs', async () => {
    const wrong = { ...restored.env, TOKEN_PEPPER: source.env.TOKEN_PEPPER, ENCRYPTION_KEY: randomBytes(32).toString('hex') };
    await expect(startTracked(wrong)).rejects.toThrow(/exited with 1 during start[\s\S]*ENCRYPTION_KEY: this database's data is sealed with the key whose id is/);
    await expect(startWorker(wrong)).rejects.toThrow(/ENCRYPTION_KEY: this database's data is sealed with the key whose id is/);
  });

  it('starts with a new ENCRYPTION_KEY when the earlier one is in ENCRYPTION_PREVIOUS_KEYS, and reads what the earlier key sealed', async () => {
    const rotated = {
      ...restored.env,
      TOKEN_PEPPER: source.env.TOKEN_PEPPER,
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      ENCRYPTION_PREVIOUS_KEYS: source.env.ENCRYPTION_KEY,
    };
    const api = await startTracked(rotated);
    const userExport = await request(`${api.baseUrl}/v1/users/export?userId=${USERS[0]}`, { token });
    expect(userExport.status).toBe(200);
    expect(JSON.stringify(userExport.body)).toContain('pricing');
    await api.stop();
    // The check value now opens with the new key alone; the earlier key alone no longer suffices.
    const [{ sealed }] = await restored.sql<{ sealed: string }>('SELECT sealed FROM encryption_key_check');
    expect(sealed).not.toContain(`:${keyIdOf(source.env.ENCRYPTION_KEY)}:`);
  });

  async function startTracked(env: Record<string, string>): Promise<RunningProcess> {
    const api = await startApi(env);
    started.push(api);
    return api;
  }
});

/** The fields of an answer that say when it was made or how long it took. */
const MOMENTS = ['exportedAt', 'inferenceMs', 'timestamp', 'predictedAt'];

/** `body` without the fields named `keys`, at any depth. */
function without(keys: readonly string[], body: unknown): unknown {
  return JSON.parse(JSON.stringify(body, (key, value: unknown) => (keys.includes(key) ? undefined : value)));
}

/** The served predictions' confidences, in order. */
function confidencesOf(answers: Answers): number[] {
  return (answers.predictions as Array<{ predictions: Array<{ confidence: number }> }>).flatMap((answer) => answer.predictions.map((p) => p.confidence));
}

/** The public id Foresight names a key by in sealed values (first 8 hex characters of its SHA-256). */
function keyIdOf(hexKey: string): string {
  return createHash('sha256').update(Buffer.from(hexKey, 'hex')).digest('hex').slice(0, 8);
}
