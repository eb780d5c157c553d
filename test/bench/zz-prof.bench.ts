import { startServer } from '../support/processes';
import { benchmark } from './support/benchmark';
import { CpuPerEvent } from './support/cpu';
import { load } from './support/measure';
const BATCH = 500;
const oneEvent = (i: number) => ({
  event: i % 4 === 0 ? 'scroll' : 'click',
  userId: `bench-user-${i % 1000}`,
  properties: i % 4 === 0 ? { depth: 0.6, dwellMs: 900 } : { button: 'buy', plan: 'pro' },
});
benchmark('bench_prof', async (suite) => {
  const { token } = await suite.createOrganization('Bench', ['--rate-limit', '100000000', '--burst', '200000000']);
  const api = await startServer([...(process.env.PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : []), 'dist/apps/api/src/main.js'], { ...suite.env, LOG_LEVEL: 'warn' });
  const postgres = async () =>
    (await suite.sql<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() OR backend_type IN ('walwriter', 'checkpointer')`)).map((row) => row.pid);
  const cpu = new CpuPerEvent({ postgres, API: async () => [api.child.pid as number] });
  try {
    const batch = JSON.stringify(Array.from({ length: BATCH }, (_, i) => oneEvent(i)));
    for (let round = 0; round < 3; round++) {
      const r = await cpu.measure(() => load(`${api.baseUrl}/v1/events`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token.secret}` }, body: batch, connections: 8, durationSeconds: 5 }), 5, BATCH);
      console.log('events/s', Math.round(r.requestsPerSecond * BATCH));
    }
    console.log(cpu.summary(2));
  } finally { await api.stop(); }
});
