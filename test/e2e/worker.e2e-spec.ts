import { type ChildProcess, spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { eventually } from '../support/eventually';
import { freePort } from '../support/ports';
import { startWorker } from '../support/processes';
import { TestSuite } from '../support/suite';

describe('worker process', () => {
  let suite: TestSuite;

  beforeAll(async () => {
    suite = await TestSuite.create('worker');
  });

  afterAll(async () => {
    await suite?.destroy();
  });

  it('starts, serves metrics, and exits cleanly on SIGTERM', async () => {
    const worker = await startWorker(suite.env);
    const metrics = await fetch(`${worker.metricsUrl}/metrics`).then((r) => r.text());
    expect(metrics).toContain('process_cpu_user_seconds_total');
    expect(worker.output()).not.toContain('REDIS MISCONFIGURED');
    await worker.stop();
    expect(worker.child.exitCode).toBe(0);
  });

  it('has monthly event partitions from migrate on, and moves rows that arrived before their month out of the default partition', async () => {
    const now = new Date().toISOString();
    const month = `events_${now.slice(0, 4)}_${now.slice(5, 7)}`;
    const partitions = async () =>
      (await suite.sql<{ name: string }>(`SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = 'events'::regclass`)).map((p) => p.name);
    expect(await partitions()).toEqual(expect.arrayContaining(['events_default', month]));
    expect((await partitions()).length).toBeGreaterThanOrEqual(6); // default, last month, this month, three ahead

    // As if this month's partition had not been created in time.
    await suite.sql(`DROP TABLE ${month}`);
    await suite.sql(
      `INSERT INTO events (organization_id, message_id, event, user_id, occurred_at, received_at) VALUES ('org_x', 'early', 'click', 'u', $1, $1)`,
      [now],
    );
    const partitionOfEarly = async () => (await suite.sql<{ partition: string }>(`SELECT tableoid::regclass::text AS partition FROM events WHERE message_id = 'early'`))[0].partition;
    expect(await partitionOfEarly()).toBe('events_default');
    const worker = await startWorker(suite.env);
    try {
      await eventually(`the worker to create ${month} again`, async () => ((await partitions()).includes(month) ? true : undefined), 10_000);
      expect(await partitionOfEarly()).toBe(month);
    } finally {
      await worker.stop();
    }
  });

  it('warns loudly when Redis may evict keys', async () => {
    const port = await freePort();
    const evicting: ChildProcess = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'allkeys-lru'],
      { stdio: 'ignore' },
    );
    try {
      const probe = new Redis(`redis://127.0.0.1:${port}`, { retryStrategy: (n) => (n > 50 ? null : 100) });
      await probe.ping();
      probe.disconnect();
      const worker = await startWorker({ ...suite.env, REDIS_URL: `redis://127.0.0.1:${port}` });
      await worker.stop();
      const warning = worker.output().split('\n').find((line) => line.includes('REDIS MISCONFIGURED'));
      expect(warning && JSON.parse(warning)).toMatchObject({ level: 40, policy: 'allkeys-lru' });
    } finally {
      evicting.kill('SIGTERM');
    }
  });
});
