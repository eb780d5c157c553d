import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './config';
import { startupLine, startupSummary } from './startup-summary';

const facts = { version: '1.2.3', nodeVersion: 'v26.10.0', dashboardServed: false };
const secrets = { TOKEN_PEPPER: 'pepper-'.repeat(6), ENCRYPTION_KEY: 'e'.repeat(64) };

describe('startupSummary', () => {
  it('names the addresses to open and the stores of an external deployment, without any credential', () => {
    const config = loadConfig({
      ...secrets,
      DATABASE_URL: 'postgres://foresight_app:s3cr3t-db-pw@db.internal:6543/analytics?sslmode=require&password=alt-pw',
      REDIS_URL: 'rediss://default:r3dis-pw@cache.internal:6380/2',
      HOST: '0.0.0.0',
      PORT: '8080',
      METRICS_PORT: '9100',
    });
    const summary = startupSummary(config, facts);
    expect(summary).toEqual({
      version: '1.2.3',
      node: 'v26.10.0',
      api: 'http://localhost:8080/v1',
      docs: 'http://localhost:8080/v1/docs',
      metrics: 'http://localhost:9100/metrics',
      database: 'PostgreSQL db.internal:6543/analytics',
      redis: 'Redis cache.internal:6380',
      worker: 'off (background jobs run in worker processes)',
    });
    const printed = `${startupLine(summary)} ${JSON.stringify(summary)}`;
    for (const secret of ['s3cr3t-db-pw', 'alt-pw', 'r3dis-pw', 'foresight_app', secrets.TOKEN_PEPPER, secrets.ENCRYPTION_KEY]) {
      expect(printed).not.toContain(secret);
    }
    expect(startupLine(summary)).toBe(
      'Foresight 1.2.3 on Node.js v26.10.0: API http://localhost:8080/v1, docs http://localhost:8080/v1/docs, ' +
        'metrics http://localhost:9100/metrics; database PostgreSQL db.internal:6543/analytics; Redis cache.internal:6380; ' +
        'worker off (background jobs run in worker processes)',
    );
  });

  it('shows the embedded database with its directory and an inline worker', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'foresight-summary-'));
    const summary = startupSummary(loadConfig({ DATA_DIR: dataDir, HOST: '127.0.0.1' }), facts);
    expect(summary).toMatchObject({
      api: 'http://127.0.0.1:3000/v1',
      database: `embedded PGlite in ${dataDir}`,
      redis: 'Redis 127.0.0.1:6379',
      worker: 'inline (background jobs run in this process)',
    });
  });

  it('names a Redis Cluster or Sentinel topology without its passwords', () => {
    const base = { ...secrets, DATABASE_URL: 'postgres://localhost/foresight', REDIS_PASSWORD: 'node-pw', REDIS_USERNAME: 'app-user' };
    const cluster = startupSummary(loadConfig({ ...base, REDIS_CLUSTER_NODES: 'r1:7000,r2:7001' }), facts);
    expect(cluster.redis).toBe('Redis Cluster r1:7000,r2:7001');
    const sentinel = startupSummary(loadConfig({ ...base, REDIS_SENTINELS: 's1:26379', REDIS_SENTINEL_NAME: 'main', REDIS_SENTINEL_PASSWORD: 'sentinel-pw' }), facts);
    expect(sentinel.redis).toBe('Redis Sentinel master "main" via s1:26379');
    const printed = `${startupLine(cluster)} ${startupLine(sentinel)}`;
    for (const secret of ['node-pw', 'sentinel-pw', 'app-user']) expect(printed).not.toContain(secret);
  });

  it('lists the dashboard only when the process serves it', () => {
    const config = loadConfig({ ...secrets, DATABASE_URL: 'postgres://localhost/foresight', HOST: '::1' });
    expect(startupLine(startupSummary(config, facts))).not.toContain('dashboard');
    const served = startupSummary(config, { ...facts, dashboardServed: true });
    expect(served.dashboard).toBe('http://[::1]:3000/dashboard');
    expect(startupLine(served)).toContain(', dashboard http://[::1]:3000/dashboard,');
    expect(served.database).toBe('PostgreSQL localhost:5432/foresight');
  });
});
