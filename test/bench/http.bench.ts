// npm run bench:http — GET /v1/health with auth and rate limiting on, beside a bare Fastify route, same run.
import { join } from 'node:path';
import { startApi, startServer } from '../support/processes';
import { benchmark } from './support/benchmark';
import { interleaved, ratioLine, report } from './support/measure';

benchmark('bench_http', async (suite) => {
  // A limit far above what the machine can send keeps the limiter on the hot path without rejecting.
  const { token } = await suite.createOrganization('Bench', ['--rate-limit', '100000000', '--burst', '200000000']);
  const api = await startApi({ ...suite.env, LOG_LEVEL: 'warn' });
  const bare = await startServer(['-r', '@swc-node/register', join(__dirname, 'baselines', 'bare-fastify.server.ts')], {});
  try {
    const headers = { authorization: `Bearer ${token.secret}` };
    const [baseline, health] = await interleaved([
      { name: 'baseline: bare Fastify route', url: `${bare.baseUrl}/bare` },
      { name: 'GET /v1/health (token + Redis rate limit)', url: `${api.baseUrl}/v1/health`, options: { headers } },
    ]);
    if (health.result.non2xx > 0) throw new Error(`/v1/health answered ${health.result.non2xx} non-2xx responses during the run`);
    report('bench:http (autocannon, 50 connections, median of 3 alternating 5 s rounds, one machine; API LOG_LEVEL=warn, no access log)', [baseline, health]);
    ratioLine('throughput ratio health / baseline', health.result.requestsPerSecond, baseline.result.requestsPerSecond, '>= 0.5');
  } finally {
    await Promise.all([api.stop(), bare.stop()]);
  }
});
