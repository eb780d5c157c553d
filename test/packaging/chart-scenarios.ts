import { exampleValues, type Release, renderRelease, type Values } from './chart';

/** The setups the chart tests lint, render and validate: the two examples and every optional setting. */

/** The required values, given inline: the image, PostgreSQL, Redis and the two service secrets. */
export const REQUIRED_INLINE: Values = {
  image: { repository: 'registry.example.com/foresight' },
  postgres: { url: 'postgres://foresight:pw@postgres.internal:5432/foresight' },
  redis: { url: 'rediss://:pw@redis.internal:6380' },
  secrets: { tokenPepper: 'p'.repeat(40), encryptionKey: 'ab'.repeat(32) },
};

/** What the existingSecret of the examples (foresight-env) holds in these tests. */
export const EXISTING_SECRET = {
  name: 'foresight-env',
  data: {
    DATABASE_URL: 'postgres://foresight:pw@db.internal:5432/foresight',
    REDIS_URL: 'redis://:pw@redis.internal:6379',
    TOKEN_PEPPER: 'q'.repeat(64),
    ENCRYPTION_KEY: 'cd'.repeat(32),
  } as Record<string, string>,
};

/** Inline connections and every optional setting the examples leave alone. */
export const EVERY_OPTION: Values = {
  ...REQUIRED_INLINE,
  image: { repository: 'registry.internal/foresight', digest: `sha256:${'e'.repeat(64)}` },
  imagePullSecrets: [{ name: 'regcred' }],
  fullnameOverride: 'analytics',
  region: 'us',
  logLevel: 'debug',
  postgres: {
    url: 'postgres://foresight:pw@pgbouncer.internal:6432/foresight',
    poolMode: 'transaction',
    idleTimeout: '30s',
    readUrl: 'postgres://reader:pw@postgres-replica.internal:5432/foresight',
    readMaxLag: '2m',
  },
  monitoring: { schedule: '*/30 * * * *' },
  serving: { modelMemoryMb: 256 },
  webhooks: { retrySchedule: ['1s', '10m'], timeoutMs: 5000, allowedNetworks: ['10.0.0.0/8', 'fd00::/8'], disableAfter: '2d' },
  http: {
    publicUrl: 'https://foresight.example.com',
    trustedProxies: ['10.0.0.0/8', 'fd00::1'],
    unauthenticatedRateLimitPerMinute: 30,
    unauthenticatedBurstPerMinute: 90,
    headersTimeout: '10s',
    requestTimeout: '30s',
    keepAliveTimeout: '620s',
    maxConnections: 5000,
  },
  tracing: { endpoint: 'http://otel-collector.observability:4318', serviceName: 'analytics', sampleRatio: 0.25 },
  serviceAccountName: 'foresight',
  extraEnv: [{ name: 'NODE_EXTRA_CA_CERTS', value: '/etc/internal-ca/ca.crt' }],
  extraVolumes: [{ name: 'internal-ca', configMap: { name: 'internal-ca' } }],
  extraVolumeMounts: [{ name: 'internal-ca', mountPath: '/etc/internal-ca', readOnly: true }],
  api: {
    podAnnotations: { 'example.com/team': 'analytics' },
    nodeSelector: { pool: 'api' },
    tolerations: [{ key: 'dedicated', value: 'api', effect: 'NoSchedule' }],
    affinity: { nodeAffinity: {} },
    podDisruptionBudget: { enabled: false },
  },
  worker: {
    podAnnotations: { 'example.com/team': 'analytics' },
    nodeSelector: { pool: 'training' },
    tolerations: [{ key: 'dedicated', value: 'training', effect: 'NoSchedule' }],
    affinity: { nodeAffinity: {} },
  },
  migrations: {
    podAnnotations: { 'sidecar.istio.io/inject': 'false' },
    nodeSelector: { pool: 'api' },
    tolerations: [{ key: 'dedicated', value: 'api', effect: 'NoSchedule' }],
    affinity: { nodeAffinity: {} },
  },
  service: { annotations: { 'networking.example.com/internal': 'true' } },
  ingress: { enabled: true, host: 'foresight.internal' },
  networkPolicy: { enabled: false },
};

export interface Scenario {
  readonly name: string;
  readonly values: Values[];
  readonly releaseName?: string;
  /** kind/name of every object rendered, sorted. */
  readonly resources: string[];
}

export const SCENARIOS: Scenario[] = [
  {
    name: 'examples/minimal.yaml',
    values: [exampleValues('minimal.yaml')],
    resources: [
      'ConfigMap/acme-foresight-config',
      'ConfigMap/acme-foresight-migrate',
      'Deployment/acme-foresight-api',
      'Deployment/acme-foresight-worker',
      'Job/acme-foresight-migrate',
      'NetworkPolicy/acme-foresight',
      'Pod/acme-foresight-test',
      'PodDisruptionBudget/acme-foresight-api',
      'Service/acme-foresight',
    ],
  },
  {
    name: 'examples/high-availability.yaml',
    values: [exampleValues('high-availability.yaml')],
    // Named after the chart, as the example assumes: resource names then start with the release name alone.
    releaseName: 'foresight',
    resources: [
      'ConfigMap/foresight-config',
      'ConfigMap/foresight-migrate',
      'Deployment/foresight-api',
      'Deployment/foresight-worker',
      'HorizontalPodAutoscaler/foresight-api',
      'HorizontalPodAutoscaler/foresight-worker',
      'Ingress/foresight',
      'Job/foresight-migrate',
      'NetworkPolicy/foresight',
      'Pod/foresight-test',
      'PodDisruptionBudget/foresight-api',
      'Service/foresight',
      'Service/foresight-metrics',
      'ServiceMonitor/foresight',
    ],
  },
  {
    name: 'inline secrets and every optional setting',
    values: [EVERY_OPTION],
    resources: [
      'ConfigMap/analytics-config',
      'ConfigMap/analytics-migrate',
      'Deployment/analytics-api',
      'Deployment/analytics-worker',
      'Ingress/analytics',
      'Job/analytics-migrate',
      'Pod/analytics-test',
      'Secret/analytics',
      'Secret/analytics-migrate',
      'Service/analytics',
    ],
  },
];

export function renderScenario(scenario: Scenario): Release {
  return renderRelease(scenario.values, scenario.releaseName);
}
