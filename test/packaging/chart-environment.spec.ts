import { z } from 'zod';
import { loadConfig } from '../../libs/platform/src/config/config';
import { environmentSchema, REQUIRED_WITH_EXTERNAL_DATABASE } from '../../libs/platform/src/config/config.schema';
import {
  container,
  containerPort,
  find,
  type Manifest,
  type Release,
  renderRelease,
  schemaErrors,
  secretData,
  type Values,
  workload,
} from './chart';
import { EVERY_OPTION, EXISTING_SECRET, renderScenario, REQUIRED_INLINE, SCENARIOS } from './chart-scenarios';

/**
 * The environment each container gets, resolved from the rendered release as the kubelet would,
 * checked against the app's own configuration schema (libs/platform/src/config/config.schema.ts),
 * so a variable added there and required on Kubernetes fails here until the chart sets it.
 */

type Variable = keyof typeof environmentSchema.shape;

/** Needed on Kubernetes beyond REQUIRED_WITH_EXTERNAL_DATABASE: an external database, Redis, the ports the pods declare, a separate worker. */
const REQUIRED_ON_KUBERNETES: Variable[] = [
  ...REQUIRED_WITH_EXTERNAL_DATABASE,
  'DATABASE_URL',
  'REDIS_URL',
  'TOKEN_PEPPER',
  'ENCRYPTION_KEY',
  'REGION',
  'PORT',
  'METRICS_PORT',
  'WORKER_MODE',
];
const SECRETS: Variable[] = ['DATABASE_URL', 'REDIS_URL', 'TOKEN_PEPPER', 'ENCRYPTION_KEY'];
/** Secrets a release may leave out: no read replica. */
const OPTIONAL_SECRETS: Variable[] = ['DATABASE_READ_URL'];

type Source = 'ConfigMap' | 'Secret' | 'value';

interface Environment {
  readonly variables: Record<string, string>;
  readonly sources: Record<string, Source>;
}

/**
 * Resolves envFrom, then env (which wins), failing on any reference Kubernetes could not resolve; an
 * optional key a Secret lacks leaves its variable unset, as the kubelet does. `existing` is what the
 * existingSecret holds.
 */
function environment(release: Release, manifest: Manifest, existing: Record<string, string> = EXISTING_SECRET.data): Environment {
  const { envFrom, env } = container(manifest);
  const variables: Record<string, string> = {};
  const sources: Record<string, Source> = {};
  const set = (name: string, value: unknown, source: Source) => {
    if (typeof value !== 'string') throw new Error(`${manifest.metadata.name}: ${name} is ${JSON.stringify(value)}, not a string`);
    variables[name] = value;
    sources[name] = source;
  };
  for (const from of envFrom ?? []) {
    if (!from.configMapRef || Object.keys(from).length !== 1) throw new Error(`unexpected envFrom ${JSON.stringify(from)}`);
    const data = (find(release, 'ConfigMap', from.configMapRef.name).data ?? {}) as Record<string, unknown>;
    for (const [name, value] of Object.entries(data)) set(name, value, 'ConfigMap');
  }
  for (const variable of env ?? []) {
    const ref = variable.valueFrom?.secretKeyRef;
    if (!ref) {
      set(variable.name, variable.value, 'value');
      continue;
    }
    const data = ref.name === (release.values.existingSecret as string) ? existing : secretData(release, ref.name);
    if (!data) throw new Error(`${manifest.metadata.name}: ${variable.name} reads Secret ${ref.name}, which is neither rendered nor the existingSecret`);
    if (!(ref.key in data)) {
      if (ref.optional === true) continue;
      throw new Error(`${manifest.metadata.name}: Secret ${ref.name} has no key ${ref.key}`);
    }
    set(variable.name, data[ref.key], 'Secret');
  }
  return { variables, sources };
}

describe.each(SCENARIOS)('container environment with $name', (scenario) => {
  const release = renderScenario(scenario);
  const api = workload(release, 'api');
  const worker = workload(release, 'worker');
  const migrations = workload(release, 'migrations');
  const extraEnv = ((release.values.extraEnv ?? []) as { name: string }[]).map((e) => e.name);

  it('is the same for the API, the worker and the migration Job', () => {
    expect(environment(release, worker)).toEqual(environment(release, api));
    expect(environment(release, migrations)).toEqual(environment(release, api));
  });

  it.each([
    ['api', api],
    ['worker', worker],
  ])('sets every variable the %s needs on Kubernetes, and only variables the app reads', (_, manifest) => {
    const { variables } = environment(release, manifest);
    expect(Object.keys(variables)).toEqual(expect.arrayContaining(REQUIRED_ON_KUBERNETES));
    const known = [...Object.keys(environmentSchema.shape), ...extraEnv];
    expect(Object.keys(variables).filter((name) => !known.includes(name))).toEqual([]);
  });

  it.each([
    ['api', api],
    ['worker', worker],
  ])('passes the app’s own configuration check in the %s container: external database, separate worker', (_, manifest) => {
    const { variables } = environment(release, manifest);
    const parsed = environmentSchema.safeParse(variables);
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
    const config = loadConfig(variables);
    expect(config).toMatchObject({ embedded: false, workerMode: 'off', region: release.values.region });
    expect(config.metricsPort).toBe(containerPort(manifest, 'metrics'));
  });

  it('makes the API listen on the port its probes and Service use', () => {
    expect(loadConfig(environment(release, api).variables).port).toBe(containerPort(api, 'http'));
  });

  it('takes the secrets from a Secret only, never from a plain value or the ConfigMap', () => {
    const { sources } = environment(release, api);
    for (const name of [...SECRETS, ...OPTIONAL_SECRETS.filter((n) => n in sources)]) expect(`${name} from ${sources[name]}`).toBe(`${name} from Secret`);
  });
});

/** Each chart value that becomes an app variable, with values to probe the two validations with. */
const MAPPINGS: { path: string; variable: Variable; samples: unknown[] }[] = [
  { path: 'region', variable: 'REGION', samples: ['eu', 'us', 'mars', 'EU'] },
  { path: 'logLevel', variable: 'LOG_LEVEL', samples: ['info', 'silent', 'verbose'] },
  { path: 'postgres.poolSize', variable: 'DATABASE_POOL_SIZE', samples: [0, 1, 10, 200, 201, 2.5] },
  { path: 'ports.http', variable: 'PORT', samples: [0, 80, 1023, 1024, 3000, 65535, 65536] },
  { path: 'ports.metrics', variable: 'METRICS_PORT', samples: [0, 1024, 9464, 65536] },
  { path: 'monitoring.schedule', variable: 'MONITORING_SCHEDULE', samples: ['7 * * * *', '*/5 * * * * *', 'hourly', ''] },
  { path: 'scoring.schedule', variable: 'SCORING_SCHEDULE', samples: ['13 4 * * *', '*/5 * * * * *', 'daily', ''] },
  { path: 'scoring.chunkUsers', variable: 'SCORING_CHUNK_USERS', samples: [0, 1, 4000, 20_000, 20_001, 2.5] },
  { path: 'scoring.shards', variable: 'SCORING_SHARDS', samples: [0, 1, 64, 1024, 1025, 1.5] },
  { path: 'scoring.shardUsers', variable: 'SCORING_SHARD_USERS', samples: [0, 1, 1000, 1_000_000, 1_000_001, 1.5] },
  { path: 'serving.modelMemoryMb', variable: 'SERVING_MODEL_MEMORY_MB', samples: [15, 16, 512, 1.5, '512'] },
  { path: 'webhooks.retrySchedule', variable: 'WEBHOOK_RETRY_SCHEDULE', samples: [['5s', '5m'], [], ['500ms'], ['5 s'], ['5w']] },
  { path: 'webhooks.timeoutMs', variable: 'WEBHOOK_TIMEOUT_MS', samples: [99, 100, 10_000, 60_000, 60_001, 1.5] },
  { path: 'webhooks.allowedNetworks', variable: 'WEBHOOK_ALLOWED_NETWORKS', samples: [[], ['10.0.0.0/8'], ['fd00::/8'], ['10.0.0.0'], ['example.com/8']] },
  { path: 'webhooks.disableAfter', variable: 'WEBHOOK_DISABLE_AFTER', samples: ['5d', '12h', '5', 'forever'] },
  { path: 'http.publicUrl', variable: 'PUBLIC_URL', samples: ['', 'https://foresight.example.com', 'http://10.0.0.1:8080/foresight', 'https://x.example?y', 'ftp://x.example'] },
  { path: 'http.trustedProxies', variable: 'TRUSTED_PROXIES', samples: [[], ['10.0.0.7'], ['10.0.0.0/8', 'fd00::/8'], ['proxy.internal']] },
  { path: 'http.unauthenticatedRateLimitPerMinute', variable: 'UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE', samples: [0, 1, 60, 1.5] },
  { path: 'http.unauthenticatedBurstPerMinute', variable: 'UNAUTHENTICATED_BURST_PER_MINUTE', samples: [1, 2, 120, 2.5] },
  { path: 'http.headersTimeout', variable: 'HTTP_HEADERS_TIMEOUT', samples: ['15s', '500ms', '0s', '00s', '15', 'never'] },
  { path: 'http.requestTimeout', variable: 'HTTP_REQUEST_TIMEOUT', samples: ['60s', '2m', '0ms', '60'] },
  { path: 'http.keepAliveTimeout', variable: 'HTTP_KEEP_ALIVE_TIMEOUT', samples: ['72s', '620s', '0s', '5 s'] },
  { path: 'http.maxConnections', variable: 'HTTP_MAX_CONNECTIONS', samples: [0, 1, 10_000, 2.5] },
  { path: 'tracing.endpoint', variable: 'OTEL_EXPORTER_OTLP_ENDPOINT', samples: ['', 'http://otel-collector:4318', 'https://collector.example/otlp', 'otel-collector:4318', 'grpc://c:4317'] },
  { path: 'tracing.serviceName', variable: 'OTEL_SERVICE_NAME', samples: ['foresight', 'acme.prod-1', '', 'two words'] },
  { path: 'tracing.sampleRatio', variable: 'OTEL_TRACES_SAMPLER_ARG', samples: [0, 0.1, 1, 1.5, -0.1] },
  { path: 'redis.prefix', variable: 'REDIS_PREFIX', samples: ['', 'foresight:', 'a_b-c:1', '{shop}:', 'bad prefix', 'ü', 'a{b}'] },
  { path: 'postgres.poolMode', variable: 'DATABASE_POOL_MODE', samples: ['session', 'transaction', 'statement', 'Transaction', ''] },
  { path: 'postgres.idleTimeout', variable: 'DATABASE_IDLE_TIMEOUT', samples: ['10s', '500ms', '5m', '10', 'never', ''] },
  { path: 'postgres.readMaxLag', variable: 'DATABASE_READ_MAX_LAG', samples: ['30s', '2m', '1h', '30', '30 s'] },
  // Empty (no replica) is left out: the chart then sets no DATABASE_READ_URL at all (tested below).
  { path: 'postgres.readUrl', variable: 'DATABASE_READ_URL', samples: ['postgres://r:p@replica:5432/f', 'postgresql://replica/f', 'mysql://replica/f', 'postgres://', 'replica:5432'] },
  { path: 'postgres.url', variable: 'DATABASE_URL', samples: ['postgres://u:p@db:5432/f', 'postgresql://db/f', 'mysql://db/f', 'postgres://', 'db:5432'] },
  { path: 'redis.url', variable: 'REDIS_URL', samples: ['redis://r:6379', 'rediss://:p@r:6380', 'http://r', 'redis://'] },
  { path: 'secrets.tokenPepper', variable: 'TOKEN_PEPPER', samples: ['x'.repeat(31), 'x'.repeat(32)] },
  { path: 'secrets.encryptionKey', variable: 'ENCRYPTION_KEY', samples: ['a'.repeat(64), 'A'.repeat(64), 'a'.repeat(63), 'g'.repeat(64)] },
];

const at = (path: string, value: unknown): Values =>
  path
    .split('.')
    .reverse()
    .reduce<unknown>((inner, key) => ({ [key]: inner }), value) as Values;

const appRules = z.toJSONSchema(environmentSchema, { io: 'input' }).properties as Record<string, { enum?: unknown[] }>;

describe('chart values that become app variables', () => {
  const release = renderRelease([EVERY_OPTION]);

  it.each(MAPPINGS)('sets $variable from $path', ({ path, variable }) => {
    const value = path.split('.').reduce<unknown>((v, key) => (v as Values)[key], release.values);
    expect(environment(release, find(release, 'Deployment', 'analytics-api')).variables[variable]).toBe(String(value));
  });

  it.each(MAPPINGS)('accepts for $path only what the app accepts for $variable', ({ path, variable, samples }) => {
    const enumValues = appRules[variable].enum ?? [];
    const chartAccepts = (sample: unknown) => schemaErrors(REQUIRED_INLINE, at(path, sample)).length === 0;
    const accepted = [...samples, ...enumValues].filter(chartAccepts);
    expect(accepted.length).toBeGreaterThan(0);
    const appRejects = accepted.filter((sample) => !environmentSchema.shape[variable].safeParse(String(sample)).success);
    expect(appRejects).toEqual([]);
    // Every value of an app enum is offered by the chart too (a region added to the app, say).
    expect(enumValues.filter((value) => !chartAccepts(value))).toEqual([]);
  });
});

describe('a read replica', () => {
  const READ_URL = 'postgres://reader:pw@postgres-replica.internal:5432/foresight';
  /** DATABASE_READ_URL of the API, the worker and the migration Job. */
  const readUrls = (values: Values[], existing?: Record<string, string>) => {
    const release = renderRelease(values);
    return (['api', 'worker', 'migrations'] as const).map((component) => environment(release, workload(release, component), existing).variables.DATABASE_READ_URL);
  };
  const renderedSecrets = (values: Values[]) => {
    const release = renderRelease(values);
    return release.manifests.filter((m) => m.kind === 'Secret').map((m) => secretData(release, m.metadata.name) ?? {});
  };

  it('is postgres.readUrl, kept in the chart’s Secrets like postgres.url; without it, no DATABASE_READ_URL at all', () => {
    expect(readUrls([REQUIRED_INLINE, { postgres: { readUrl: READ_URL } }])).toEqual([READ_URL, READ_URL, READ_URL]);
    for (const data of renderedSecrets([REQUIRED_INLINE, { postgres: { readUrl: READ_URL } }])) expect(data.DATABASE_READ_URL).toBe(READ_URL);
    expect(readUrls([REQUIRED_INLINE])).toEqual([undefined, undefined, undefined]);
    for (const data of renderedSecrets([REQUIRED_INLINE])) expect(Object.keys(data)).not.toContain('DATABASE_READ_URL');
  });

  it('comes from the existingSecret when it holds DATABASE_READ_URL, and is simply unset when it does not', () => {
    const values = [{ image: { repository: 'r/foresight' }, existingSecret: EXISTING_SECRET.name }];
    expect(readUrls(values, { ...EXISTING_SECRET.data, DATABASE_READ_URL: READ_URL })).toEqual([READ_URL, READ_URL, READ_URL]);
    expect(readUrls(values)).toEqual([undefined, undefined, undefined]);
  });

  it('with the pool mode and lag, passes the app’s configuration check', () => {
    const release = renderRelease([REQUIRED_INLINE, { postgres: { readUrl: READ_URL, poolMode: 'transaction', readMaxLag: '5m', idleTimeout: '1m' } }]);
    const config = loadConfig(environment(release, workload(release, 'api')).variables);
    expect(config).toMatchObject({ databasePoolMode: 'transaction', databaseReadMaxLagSeconds: 300, databaseIdleTimeoutMs: 60_000 });
    expect(config.databaseReadUrl?.reveal()).toBe(READ_URL);
  });
});

describe('single sign-on values', () => {
  const sso = {
    issuer: 'https://keycloak.example.com/realms/acme',
    clientId: 'foresight-dashboard',
    clientSecret: { secretName: EXISTING_SECRET.name, key: 'oidc-client-secret' },
    tokenSignIn: false,
  };
  const values = [{ image: { repository: 'r/foresight' }, existingSecret: EXISTING_SECRET.name, http: { publicUrl: 'https://foresight.example.com' }, sso }];

  it('configure the dashboard sign-in in every container, the client secret read from its Secret by key', () => {
    const release = renderRelease(values);
    for (const component of ['api', 'worker', 'migrations'] as const) {
      const { variables, sources } = environment(release, workload(release, component), { ...EXISTING_SECRET.data, 'oidc-client-secret': 'the-client-secret' });
      expect(sources.OIDC_CLIENT_SECRET).toBe('Secret');
      const { dashboard } = loadConfig(variables);
      expect(dashboard).toMatchObject({
        tokenSignIn: false,
        sso: { issuer: sso.issuer, clientId: sso.clientId, redirectUrl: 'https://foresight.example.com/auth/callback', refreshIntervalMs: 300_000 },
      });
      expect(dashboard.sso?.clientSecret?.reveal()).toBe('the-client-secret');
    }
  });

  it('set no OIDC variable without an issuer, and token sign-in stays', () => {
    const release = renderRelease([REQUIRED_INLINE]);
    const { variables } = environment(release, workload(release, 'api'));
    expect(Object.keys(variables).filter((name) => name.startsWith('OIDC_'))).toEqual([]);
    expect(loadConfig(variables).dashboard).toMatchObject({ tokenSignIn: true, sso: undefined });
  });
});

describe('Redis Cluster and Sentinel values', () => {
  const cluster: Values = { redis: { url: '', clusterNodes: ['redis-0.internal:6379', 'redis-1.internal'], username: 'foresight', password: 'node-pw', tls: true } };
  const sentinel: Values = { redis: { url: '', sentinels: ['sentinel-0:26379', 'sentinel-1'], sentinelName: 'main', password: 'node-pw', sentinelPassword: 'sentinel-pw' } };
  /** The Redis configuration every container ends up with, and where its passwords came from. */
  const redisOf = (values: Values[], existing?: Record<string, string>) => {
    const release = renderRelease(values);
    return (['api', 'worker', 'migrations'] as const).map((component) => {
      const { variables, sources } = environment(release, workload(release, component), existing);
      return { redis: loadConfig(variables).redis, url: variables.REDIS_URL, passwordFrom: sources.REDIS_PASSWORD };
    });
  };

  it('select a Redis Cluster: its nodes in the ConfigMap, its password in the chart’s Secret, no REDIS_URL', () => {
    for (const { redis, url, passwordFrom } of redisOf([REQUIRED_INLINE, cluster])) {
      expect(redis).toMatchObject({ kind: 'cluster', nodes: [{ host: 'redis-0.internal', port: 6379 }, { host: 'redis-1.internal', port: 6379 }], username: 'foresight', tls: true });
      expect(redis.kind === 'cluster' && redis.password?.reveal()).toBe('node-pw');
      expect({ url, passwordFrom }).toEqual({ url: undefined, passwordFrom: 'Secret' });
    }
  });

  it('select Sentinel: the sentinels and master name, both passwords from the Secret', () => {
    for (const { redis, url } of redisOf([REQUIRED_INLINE, sentinel])) {
      expect(redis).toMatchObject({ kind: 'sentinel', masterName: 'main', tls: false, sentinels: [{ host: 'sentinel-0', port: 26379 }, { host: 'sentinel-1', port: 26379 }] });
      expect(redis.kind === 'sentinel' && [redis.password?.reveal(), redis.sentinelPassword?.reveal()]).toEqual(['node-pw', 'sentinel-pw']);
      expect(url).toBeUndefined();
    }
  });

  it('take the passwords from the existingSecret when it holds them, and need none', () => {
    const values = [{ image: { repository: 'r/foresight' }, existingSecret: EXISTING_SECRET.name, redis: { clusterNodes: ['redis-0:6379'] } }];
    const { REDIS_URL: _url, ...withoutUrl } = EXISTING_SECRET.data;
    const [withPassword] = redisOf(values, { ...withoutUrl, REDIS_PASSWORD: 'from-secret' });
    expect(withPassword.redis.kind === 'cluster' && withPassword.redis.password?.reveal()).toBe('from-secret');
    // REDIS_URL left in the Secret is not read: one topology only.
    const [withoutPassword] = redisOf(values);
    expect(withoutPassword).toMatchObject({ url: undefined, passwordFrom: undefined, redis: { kind: 'cluster', password: undefined } });
  });

  it('refuse two topologies, a sentinel set without its master, and node settings for a single server', () => {
    const paths = (...values: Values[]) => [...new Set(schemaErrors(REQUIRED_INLINE, ...values).map((e) => e.path))].sort();
    expect(paths({ redis: { clusterNodes: ['r:6379'] } })).toEqual(['/redis/url']);
    expect(paths({ redis: { url: '', clusterNodes: ['r:6379'], sentinels: ['s:26379'], sentinelName: 'main' } })).toEqual(['/redis/sentinels']);
    expect(paths({ redis: { url: '', sentinels: ['s:26379'] } })).toEqual(['/redis/sentinelName']);
    expect(paths({ redis: { password: 'pw', tls: true, sentinelName: 'main' } })).toEqual(['/redis/password', '/redis/sentinelName', '/redis/tls']);
    expect(paths({ existingSecret: 'foresight-env', postgres: { url: '' }, secrets: { tokenPepper: '', encryptionKey: '' }, redis: { url: '', clusterNodes: ['r:6379'], password: 'pw' } })).toEqual([
      '/redis/password',
    ]);
  });

  it('accept for the node lists and the prefix only what the app accepts', () => {
    const samples: [string, unknown, boolean][] = [
      ['clusterNodes', ['r:6379', '[fd00::1]:7000', 'r'], true],
      ['clusterNodes', ['r:99999'], false],
      ['clusterNodes', ['r 1:6379'], false],
      ['sentinels', ['s:0'], false],
      ['prefix', '{shop}:', true],
      ['prefix', 'shop:{a}', false],
    ];
    for (const [key, sample, accepted] of samples) {
      const topology = key === 'sentinels' ? { url: '', sentinels: sample, sentinelName: 'main' } : key === 'clusterNodes' ? { url: '', clusterNodes: sample } : { prefix: sample };
      expect(`${key} ${JSON.stringify(sample)}: ${schemaErrors(REQUIRED_INLINE, { redis: topology }).length === 0}`).toBe(`${key} ${JSON.stringify(sample)}: ${accepted}`);
      const variable = { clusterNodes: 'REDIS_CLUSTER_NODES', sentinels: 'REDIS_SENTINELS', prefix: 'REDIS_PREFIX' }[key] as Variable;
      const text = Array.isArray(sample) ? sample.join(',') : String(sample);
      expect(`${variable}=${text}: ${environmentSchema.shape[variable].safeParse(text).success}`).toBe(`${variable}=${text}: ${accepted}`);
    }
  });
});
