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
const envOf = (s: string) => Object.fromEntries(s.split(',').filter((kv) => kv && !kv.startsWith('DIST=')).map((kv) => kv.split('=')));
benchmark('bench_ab', async (suite) => {
  const { token } = await suite.createOrganization('Bench', ['--rate-limit', '100000000', '--burst', '200000000']);
  const configs = [process.env.A ?? '', process.env.B ?? ''];
  const apis = await Promise.all(configs.map((c) => startServer([c.startsWith('DIST=') ? c.slice(5).split(',')[0] : 'dist/apps/api/src/main.js'], { ...suite.env, LOG_LEVEL: 'warn', ...envOf(c) })));
  const postgres = async () =>
    (await suite.sql<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() OR backend_type IN ('walwriter', 'checkpointer')`)).map((row) => row.pid);
  const cpus = apis.map((api) => new CpuPerEvent({ postgres, API: async () => [api.child.pid as number] }));
  const rates: number[][] = [[], []];
  try {
    const batch = JSON.stringify(Array.from({ length: BATCH }, (_, i) => oneEvent(i)));
    for (let round = 0; round < Number(process.env.ROUNDS ?? 5); round++) {
      for (const k of [0, 1]) {
        const r = await cpus[k].measure(() => load(`${apis[k].baseUrl}/v1/events`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token.secret}` }, body: batch, connections: Number(envOf(configs[k]).CONN ?? 8), durationSeconds: 5 }), 5, BATCH);
        rates[k].push(Math.round(r.requestsPerSecond * BATCH));
      }
    }
    for (const k of [0, 1]) {
      const sorted = [...rates[k]].sort((a, b) => a - b);
      console.log(`${k ? 'B' : 'A'} [${configs[k]}] median ${sorted[sorted.length >> 1]} rounds ${rates[k].join(' ')} | ${cpus[k].summary(2)}`);
    }
    console.log('B/A per round', rates[1].map((b, i) => (b / rates[0][i]).toFixed(2)).join(' '));
  } finally { await Promise.all(apis.map((a) => a.stop())); }
});
