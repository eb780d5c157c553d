import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from '../support/http';
import { cliJson, type RunningProcess, startApi } from '../support/processes';
import { REDIS_URL } from '../support/services';
import { deleteRedisKeys, type OrganizationWithToken } from '../support/suite';

/** The zero-configuration path of the README: no DATABASE_URL, PGlite in DATA_DIR, worker inline. */
describe('embedded mode (PGlite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'foresight-embedded-'));
  const env = { DATA_DIR: dataDir, REDIS_URL, REDIS_PREFIX: `e2e:embedded:${randomBytes(4).toString('hex')}:` };
  let api: RunningProcess | undefined;

  afterAll(async () => {
    await api?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await deleteRedisKeys(env.REDIS_PREFIX);
  });

  it('creates an organization with the CLI, serves it, and lets the CLI reach the running database', async () => {
    const created = await cliJson<OrganizationWithToken>(env, ['org', 'create', '--name', 'Embedded']);
    api = await startApi(env);
    const health = await request(`${api.baseUrl}/v1/health`, { token: created.token.secret });
    expect(health).toMatchObject({ status: 200, body: { status: 'ok' } });

    // While the API owns the PGlite directory, the CLI goes through its socket.
    const second = await cliJson<{ token: { secret: string } }>(env, ['token', 'create', '--org', created.organization.id, '--env', 'dev', '--scopes', 'read']);
    expect((await request(`${api.baseUrl}/v1/health`, { token: second.token.secret })).status).toBe(200);
    const listed = await cliJson<{ tokens: unknown[] }>(env, ['token', 'list', '--org', created.organization.id]);
    expect(listed.tokens).toHaveLength(2);

    // PGlite takes events by INSERT … unnest (no COPY): every column, the numeric properties' jsonb included.
    const event = { event: 'add_to_cart', userId: 'embedded-user', properties: { items: 3, sku: 'sku-1', dwellMs: 900 } };
    const stored = await request(`${api.baseUrl}/v1/events`, { token: created.token.secret, method: 'POST', body: [event] });
    expect(stored).toMatchObject({ status: 200, body: { accepted: 1, duplicates: 0 } });
    const exported = await request<{ events: Array<{ event: string; properties: unknown }> }>(`${api.baseUrl}/v1/users/export?userId=embedded-user`, { token: created.token.secret });
    expect(exported.body.events).toEqual([expect.objectContaining({ event: 'add_to_cart', properties: event.properties })]);
  });
});
