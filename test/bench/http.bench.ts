// npm run bench:http — GET /v1/health with auth and rate limiting on, beside a bare Fastify route, and
// with tracing on (exported to a local OTLP sink that discards) beside off, same run.
import { join } from 'node:path';
import { OtlpReceiver } from '../support/otlp-receiver';
import { startApi, startServer } from '../support/processes';
import { benchmark } from './support/benchmark';
import { interleaved, ratioLine, report } from './support/measure';

benchmark('bench_http', async (suite) => {
  // A limit far above what the machine can send keeps the limiter on the hot path without rejecting.
  const { token } = await suite.createOrganization('Bench', ['--rate-limit', '100000000', '--burst', '200000000']);
  const sink = await OtlpReceiver.start({ discard: true });
  const api = await startApi({ ...suite.env, LOG_LEVEL: 'warn' });
  const traced = await startApi({ ...suite.env, LOG_LEVEL: 'warn', OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint });
  // What a production setting would sample: the context still flows through every request, one trace in ten is recorded.
  const sampled = await startApi({ ...suite.env, LOG_LEVEL: 'warn', OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint, OTEL_TRACES_SAMPLER_ARG: '0.1' });
  const bare = await startServer(['-r', '@swc-node/register', join(__dirname, 'baselines', 'bare-fastify.server.ts')], {});
  try {
    const headers = { authorization: `Bearer ${token.secret}` };
    const [baseline, health, tracedHealth, sampledHealth] = await interleaved([
      { name: 'baseline: bare Fastify route', url: `${bare.baseUrl}/bare` },
      { name: 'GET /v1/health (token + Redis rate limit)', url: `${api.baseUrl}/v1/health`, options: { headers } },
      { name: 'GET /v1/health, tracing on (OTLP sink)', url: `${traced.baseUrl}/v1/health`, options: { headers } },
      { name: 'GET /v1/health, tracing on, 10% sampled', url: `${sampled.baseUrl}/v1/health`, options: { headers } },
    ]);
    for (const { name, result } of [health, tracedHealth, sampledHealth]) {
      if (result.non2xx > 0) throw new Error(`${name} answered ${result.non2xx} non-2xx responses during the run`);
    }
    if (sink.exports === 0) throw new Error('the traced API exported no spans during the run');
    report('bench:http (autocannon, 50 connections, median of 3 alternating 5 s rounds, one machine; API LOG_LEVEL=warn, no access log)', [
      baseline,
      health,
      tracedHealth,
      sampledHealth,
    ]);
    ratioLine('throughput ratio health / baseline', health.result.requestsPerSecond, baseline.result.requestsPerSecond, '>= 0.5');
    ratioLine('throughput ratio tracing on / off', tracedHealth.result.requestsPerSecond, health.result.requestsPerSecond, 'none (cost shown)');
    ratioLine('throughput ratio 10% sampled / off', sampledHealth.result.requestsPerSecond, health.result.requestsPerSecond, 'none (cost shown)');
    console.log(`${'p99 latency ratio tracing on / off'.padEnd(44)}${(tracedHealth.result.p99Ms / health.result.p99Ms).toFixed(2).padStart(10)}`);
    console.log(`OTLP exports received by the sink: ${sink.exports}`);
  } finally {
    await Promise.all([api.stop(), traced.stop(), sampled.stop(), bare.stop()]);
    await sink.close();
  }
});
