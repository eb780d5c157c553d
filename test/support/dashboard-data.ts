import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from './http';
import { cliJson, type RunningProcess } from './processes';
import type { TestSuite } from './suite';
import { settledModel } from './training';

/** Seeds an organization with the demo's events (`foresight demo seed`) and answers the seeded user ids. */
export async function seedDemo(suite: TestSuite, organizationId: string, users: number, days: number): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'foresight-demo-seed-'));
  try {
    await cliJson(suite.env, ['demo', 'seed', '--org', organizationId, '--users', String(users), '--days', String(days), '--truth-file', join(dir, 'truth.json')]);
    return (JSON.parse(await readFile(join(dir, 'truth.json'), 'utf8')) as { users: Array<{ userId: string }> }).users.map((user) => user.userId);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** How long a first training may take: the browser suites train on a few hundred to 1,200 demo users, on a busy CI machine. */
const TRAINING_MS = 180_000;

/** Creates a model over the API, retrains it and waits until its first version serves; answers its id. */
export async function trainedModel(api: RunningProcess, token: string, definition: Record<string, unknown>): Promise<string> {
  const { body } = await request<{ id: string }>(`${api.baseUrl}/v1/models`, { token, method: 'POST', body: definition });
  await request(`${api.baseUrl}/v1/models/retrain`, { token, method: 'POST', body: { modelId: body.id } });
  expect(await settledModel(api.baseUrl, token, body.id, api, TRAINING_MS)).toMatchObject({ status: 'active', lastError: null });
  return body.id;
}

/** Asks each user's predictions once (GET /v1/predict, which logs them), ten requests at a time as many clients would. */
export async function predictEach(api: RunningProcess, token: string, userIds: string[]): Promise<void> {
  for (let i = 0; i < userIds.length; i += 10) {
    await Promise.all(userIds.slice(i, i + 10).map((userId) => request(`${api.baseUrl}/v1/predict?userId=${encodeURIComponent(userId)}`, { token })));
  }
}
