import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { type RunningProcess, startApi, startWorker } from '../support/processes';
import { type OrganizationWithToken, TestSuite } from '../support/suite';
import { learnablePopulation, sendEvents, settledModel } from '../support/training';

const ROOT = join(__dirname, '..', '..');
const SPAN_KIND = { server: 2, producer: 4, consumer: 5 } as const;

/** Whether `span` sits below `ancestor` in the trace, through any number of parents. */
function descendsFrom(span: ReceivedSpan, ancestor: ReceivedSpan, trace: ReceivedSpan[]): boolean {
  const byId = new Map(trace.map((s) => [s.spanId, s]));
  for (let parent = byId.get(span.parentSpanId); parent !== undefined; parent = byId.get(parent.parentSpanId)) {
    if (parent.spanId === ancestor.spanId) return true;
  }
  return false;
}

/** Loads an app's built tracing preload in a fresh node and says whether any OpenTelemetry SDK module came with it. */
function preloadLoadsSdk(app: 'api' | 'worker', env: Record<string, string>): boolean {
  const probe = `require(${JSON.stringify(join(ROOT, `dist/apps/${app}/src/tracing.js`))});
    console.log(Object.keys(require.cache).some((path) => /@opentelemetry[\\\\/](sdk-trace|instrumentation|exporter)/.test(path)));`;
  const result = spawnSync(process.execPath, ['-e', probe], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout.trim()) as boolean;
}

describe('tracing (OpenTelemetry over OTLP/HTTP)', () => {
  let suite: TestSuite;
  let org: OrganizationWithToken;
  let receiver: OtlpReceiver;
  let api: RunningProcess;
  let worker: RunningProcess;
  const secret = randomBytes(4).toString('hex');
  const userId = `traced-user-${secret}`;
  const eventName = `traced_event_${secret}`;
  const propertyValue = `traced-property-${secret}`;

  beforeAll(async () => {
    suite = await TestSuite.create('tracing');
    org = await suite.createOrganization('Tracing');
    receiver = await OtlpReceiver.start();
    const env = { ...suite.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'traced' };
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
  });

  afterAll(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
    await receiver?.close();
    await suite?.destroy();
  });

  it('follows a request through Postgres and Redis to the job it queued and the worker that ran it, in one trace', async () => {
    const ingest = await request(`${api.baseUrl}/v1/events`, {
      token: org.token.secret,
      method: 'POST',
      body: [{ event: eventName, userId, properties: { plan: propertyValue } }],
    });
    expect(ingest.status).toBe(200);
    const erase = await request(`${api.baseUrl}/v1/users?userId=${encodeURIComponent(userId)}`, { token: org.token.secret, method: 'DELETE' });
    expect(erase.status).toBe(200);

    const server = await eventually('the server span of DELETE /v1/users', () =>
      receiver.spans.find((span) => span.kind === SPAN_KIND.server && span.attributes['http.route'] === '/v1/users'),
    );
    expect(server).toMatchObject({ service: 'traced-api', name: 'DELETE /v1/users', parentSpanId: '' });
    expect(server.attributes).toMatchObject({ 'http.request.method': 'DELETE', 'http.response.status_code': 200 });
    const trace = () => receiver.spans.filter((span) => span.traceId === server.traceId);
    // The sweep job is queued with a delay of a few seconds, then exported in the worker's next batch.
    const job = await eventually('the worker span of the erasure sweep', () =>
      trace().find((span) => span.service === 'traced-worker' && span.kind === SPAN_KIND.consumer),
    );
    expect(job).toMatchObject({ name: 'process privacy' });
    expect(job.attributes).toMatchObject({ 'messaging.system': 'bullmq', 'messaging.destination.name': 'privacy', 'bullmq.job.name': 'privacy.sweep-erasure' });
    expect(descendsFrom(job, server, trace())).toBe(true);

    const spans = trace();
    const below = (ancestor: ReceivedSpan) => spans.filter((span) => descendsFrom(span, ancestor, spans));
    const producer = below(server).find((span) => span.kind === SPAN_KIND.producer);
    expect(producer).toMatchObject({ service: 'traced-api', name: 'send privacy' });
    expect(below(server).filter((span) => span.service === 'traced-api').map((span) => span.attributes['db.system.name'])).toEqual(
      expect.arrayContaining(['postgresql', 'redis']),
    );
    // The worker's own queries belong to the same trace, under its job span.
    expect(below(job).map((span) => span.attributes['db.system.name'])).toContain('postgresql');
    const statement = below(server).find((span) => span.attributes['db.system.name'] === 'postgresql')?.attributes['db.query.text'];
    expect(typeof statement === 'string' && statement.length > 0).toBe(true);
  });

  it('follows a retrain into the training process the worker starts: its queries and its fit, in the trace of the job', async () => {
    // Its users' ids contain the secret too, so the test below would find any that a training span exported.
    await sendEvents(api.baseUrl, org.token.secret, learnablePopulation(200, 30, { prefix: `${userId}-` }));
    const model = await request<{ id: string }>(`${api.baseUrl}/v1/models`, { token: org.token.secret, method: 'POST', body: { name: 'traced', targetEvent: 'checkout' } });
    const retrain = await request(`${api.baseUrl}/v1/models/retrain`, { token: org.token.secret, method: 'POST', body: { modelId: model.body.id } });
    expect(retrain.status).toBe(200);
    expect(await settledModel(api.baseUrl, org.token.secret, model.body.id, worker, 300_000)).toMatchObject({ status: 'active' });

    const server = await eventually('the server span of POST /v1/models/retrain', () =>
      receiver.spans.find((span) => span.kind === SPAN_KIND.server && span.attributes['http.route'] === '/v1/models/retrain'),
    );
    const trace = () => receiver.spans.filter((span) => span.traceId === server.traceId);
    // The training process sends its spans before it answers; the worker's job span follows in its next batch.
    const job = await eventually('the worker span of the training job', () =>
      trace().find((span) => span.service === 'traced-worker' && span.kind === SPAN_KIND.consumer && span.attributes['messaging.destination.name'] === 'training'),
    );
    const spans = trace();
    const inProcess = spans.filter((span) => span.service === 'traced-training');
    expect(inProcess.every((span) => descendsFrom(span, job, spans))).toBe(true);
    const matrix = inProcess.find((span) => span.name === 'training matrix');
    const fit = inProcess.find((span) => span.name === 'training fit');
    expect(matrix).toBeDefined();
    expect(fit).toBeDefined();
    // The matrix's reads are the training process's own queries, below its span.
    expect(inProcess.filter((span) => descendsFrom(span, matrix as ReceivedSpan, spans)).map((span) => span.attributes['db.system.name'])).toContain('postgresql');
  });

  it('never exports a user id, a token, an event name or a property value, nor a URL or a header', async () => {
    // Both requests' server spans have arrived by now; so have the ingestion's queries and jobs.
    await eventually('the server span of POST /v1/events', () => receiver.spans.find((span) => span.name === 'POST /v1/events'));
    expect(receiver.spans.length).toBeGreaterThan(10);
    for (const needle of [userId, encodeURIComponent(userId), org.token.secret, eventName, propertyValue]) {
      expect(receiver.spans.filter((span) => span.text.includes(needle)).map((span) => span.text)).toEqual([]);
    }
    const keys = new Set(receiver.spans.flatMap((span) => Object.keys(span.attributes)));
    expect([...keys].filter((key) => /^(url\.(full|path|query)|http\.(url|target|request\.header)|client\.|user_agent)/.test(key))).toEqual([]);
    const redisStatements = receiver.spans.filter((span) => span.attributes['db.system.name'] === 'redis').map((span) => span.attributes['db.query.text']);
    expect(redisStatements.length).toBeGreaterThan(0);
    // A command name, never its keys or arguments.
    expect(redisStatements.filter((statement) => typeof statement !== 'string' || !/^[a-z]+$/i.test(statement))).toEqual([]);
  });

  it('loads no OpenTelemetry SDK in the API or the worker when no endpoint is set', () => {
    const bare = { ...suite.env, OTEL_SERVICE_NAME: 'traced' };
    expect(preloadLoadsSdk('api', bare)).toBe(false);
    expect(preloadLoadsSdk('worker', bare)).toBe(false);
    expect(preloadLoadsSdk('api', { ...bare, OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
    // The probe sees the SDK when it is there.
    expect(preloadLoadsSdk('api', { ...bare, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint })).toBe(true);
  });

  it('exports nothing from an API and a worker started without an endpoint', async () => {
    // Same environment apart from the endpoint; the standard variables the exporter would read itself point at the receiver.
    const env = { ...suite.env, OTEL_SERVICE_NAME: 'untraced', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.endpoint}/v1/traces` };
    const [quietApi, quietWorker] = await Promise.all([startApi(env), startWorker(env)]);
    try {
      const health = await request(`${quietApi.baseUrl}/v1/health`, { token: org.token.secret });
      expect(health.status).toBe(200);
    } finally {
      await Promise.all([quietApi.stop(), quietWorker.stop()]);
    }
    // Both processes flushed at their graceful stop: anything they had traced would have arrived by now.
    expect(receiver.spans.filter((span) => span.service.startsWith('untraced'))).toEqual([]);
  });
});
