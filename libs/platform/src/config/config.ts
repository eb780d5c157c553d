import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Environment, environmentSchema, REQUIRED_WITH_EXTERNAL_DATABASE } from './config.schema';
import { Secret } from './secret';

export type Region = 'eu' | 'us';
export type WorkerMode = 'inline' | 'off';

/** An address block as node:net's BlockList.addSubnet takes it. */
export interface Subnet {
  readonly network: string;
  readonly prefix: number;
  readonly type: 'ipv4' | 'ipv6';
}

export interface WebhookSettings {
  /** Delay before each retry; its length is the number of retries. */
  readonly retryScheduleMs: readonly number[];
  readonly timeoutMs: number;
  /** Private networks receivers may be in; link-local and cloud metadata addresses are refused regardless. */
  readonly allowedNetworks: readonly Subnet[];
  readonly disableAfterMs: number;
}

export interface HttpEdgeSettings {
  /** Addresses and CIDR blocks of reverse proxies whose X-Forwarded-* headers are believed. */
  readonly trustedProxies: readonly string[];
  /** Base of absolute links, without a trailing slash; undefined: the request's own Host. */
  readonly publicUrl?: string;
  /** Per client address, for requests without a verified token. */
  readonly unauthenticatedRateLimitPerMinute: number;
  readonly unauthenticatedBurstPerMinute: number;
  /** Bounds on slow and idle clients: Node's headersTimeout, requestTimeout and keepAliveTimeout. */
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  /** Connections one process holds at once (server.maxConnections). */
  readonly maxConnections: number;
}

/** OpenID Connect single sign-on for the dashboard; absent from AppConfig when OIDC_ISSUER is unset. */
export interface SsoSettings {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret?: Secret;
  readonly redirectUrl: string;
  readonly scopes: string;
  readonly groupsClaim: string;
  readonly refreshIntervalMs: number;
}

export interface DashboardSettings {
  /** Whether a person may sign in by pasting a token. */
  readonly tokenSignIn: boolean;
  readonly sessionIdleTimeoutMs: number;
  readonly sessionMaxAgeMs: number;
  readonly sso?: SsoSettings;
}

/** Where traces go; absent from AppConfig when OTEL_EXPORTER_OTLP_ENDPOINT is unset (tracing off). */
export interface TracingSettings {
  /** OTLP/HTTP base address, without a trailing slash. */
  readonly endpoint: string;
  /** Base of the service names: `<serviceName>-api`, `<serviceName>-worker`, `<serviceName>-training`. */
  readonly serviceName: string;
  /** Share of new traces recorded, 0 to 1. */
  readonly sampleRatio: number;
}

export interface RedisNode {
  readonly host: string;
  readonly port: number;
}

/** What the cluster nodes, or the master and replicas behind sentinels, ask of a client. */
export interface RedisNodeAccess {
  readonly username?: string;
  readonly password?: Secret;
  readonly tls: boolean;
}

/** Where Redis is: exactly one of the three deployment shapes. */
export type RedisTopology =
  | { readonly kind: 'server'; readonly url: Secret }
  | ({ readonly kind: 'cluster'; readonly nodes: readonly RedisNode[] } & RedisNodeAccess)
  | ({ readonly kind: 'sentinel'; readonly sentinels: readonly RedisNode[]; readonly masterName: string; readonly sentinelPassword?: Secret } & RedisNodeAccess);

export interface TrainingSettings {
  /** The eligibility gate: users with the target event (and users without it) a run needs. */
  readonly minUsersPerClass: number;
  /** Users beyond this are sampled, stratified by whether they did the target event. */
  readonly maxUsers: number;
}

export interface AppConfig {
  readonly port: number;
  readonly host: string;
  /** Absent: the embedded PGlite database under dataDir. */
  readonly databaseUrl?: Secret;
  readonly databasePoolSize: number;
  /** `transaction`: behind a transaction pooler, no session state (no named prepared statements, no session locks). */
  readonly databasePoolMode: 'session' | 'transaction';
  readonly databaseIdleTimeoutMs: number;
  /** A streaming replica for reads that tolerate its lag; absent: every read on the primary. */
  readonly databaseReadUrl?: Secret;
  readonly databaseReadMaxLagSeconds: number;
  readonly dataDir: string;
  readonly redis: RedisTopology;
  readonly redisPrefix: string;
  readonly tokenPepper: Secret;
  readonly encryptionKey: Secret;
  /** Keys of earlier rotations, kept until no row is sealed with them. */
  readonly previousEncryptionKeys: readonly Secret[];
  readonly region: Region;
  readonly logLevel: string;
  readonly metricsPort: number;
  readonly workerMode: WorkerMode;
  readonly embedded: boolean;
  readonly monitoringSchedule: string;
  readonly training: TrainingSettings;
  readonly scoring: { readonly chunkUsers: number; readonly shards: number; readonly shardUsers: number; readonly schedule: string };
  /** Bytes of ONNX Runtime sessions a process keeps loaded for serving (estimated; the least recently used idle ones go first). */
  readonly servingModelMemoryBytes: number;
  readonly webhooks: WebhookSettings;
  readonly http: HttpEdgeSettings;
  readonly tracing?: TracingSettings;
  readonly dashboard: DashboardSettings;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * The only place that reads the environment. Every bad variable is reported at once.
 * In embedded mode (no DATABASE_URL) missing secrets are generated once and kept in DATA_DIR,
 * so a newcomer needs no configuration at all.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  const vars = parsed.data;
  if (vars.UNAUTHENTICATED_BURST_PER_MINUTE <= vars.UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE) {
    throw new ConfigError(['UNAUTHENTICATED_BURST_PER_MINUTE: must be greater than UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE']);
  }
  if (vars.HTTP_HEADERS_TIMEOUT > vars.HTTP_REQUEST_TIMEOUT) {
    throw new ConfigError(['HTTP_HEADERS_TIMEOUT: must not be longer than HTTP_REQUEST_TIMEOUT (the headers are part of the request)']);
  }
  const embedded = vars.DATABASE_URL === undefined;
  if (embedded && vars.DATABASE_READ_URL !== undefined) {
    throw new ConfigError(['DATABASE_READ_URL: needs DATABASE_URL (the embedded database has no replica)']);
  }
  if (!embedded) {
    const missing = REQUIRED_WITH_EXTERNAL_DATABASE.filter((name) => vars[name] === undefined);
    if (missing.length > 0) {
      throw new ConfigError(missing.map((name) => `${name}: required when DATABASE_URL is set`));
    }
  }
  const dashboard = dashboardFrom(vars);
  const dataDir = resolve(vars.DATA_DIR);
  return {
    port: vars.PORT,
    host: vars.HOST,
    databaseUrl: vars.DATABASE_URL === undefined ? undefined : new Secret(vars.DATABASE_URL),
    databasePoolSize: vars.DATABASE_POOL_SIZE,
    databasePoolMode: vars.DATABASE_POOL_MODE,
    databaseIdleTimeoutMs: vars.DATABASE_IDLE_TIMEOUT,
    databaseReadUrl: vars.DATABASE_READ_URL === undefined ? undefined : new Secret(vars.DATABASE_READ_URL),
    databaseReadMaxLagSeconds: vars.DATABASE_READ_MAX_LAG / 1000,
    dataDir,
    redis: redisTopologyFrom(vars),
    redisPrefix: vars.REDIS_PREFIX,
    tokenPepper: new Secret(vars.TOKEN_PEPPER ?? keptSecret(dataDir, 'token-pepper', 32)),
    encryptionKey: new Secret(vars.ENCRYPTION_KEY ?? keptSecret(dataDir, 'encryption-key', 32)),
    previousEncryptionKeys: vars.ENCRYPTION_PREVIOUS_KEYS.map((key) => new Secret(key)),
    region: vars.REGION,
    logLevel: vars.LOG_LEVEL,
    metricsPort: vars.METRICS_PORT,
    workerMode: vars.WORKER_MODE ?? (embedded ? 'inline' : 'off'),
    embedded,
    monitoringSchedule: vars.MONITORING_SCHEDULE,
    training: { minUsersPerClass: vars.TRAINING_MIN_USERS_PER_CLASS, maxUsers: vars.TRAINING_MAX_USERS },
    scoring: { chunkUsers: vars.SCORING_CHUNK_USERS, shards: vars.SCORING_SHARDS, shardUsers: vars.SCORING_SHARD_USERS, schedule: vars.SCORING_SCHEDULE },
    servingModelMemoryBytes: vars.SERVING_MODEL_MEMORY_MB * 1024 * 1024,
    webhooks: {
      retryScheduleMs: vars.WEBHOOK_RETRY_SCHEDULE,
      timeoutMs: vars.WEBHOOK_TIMEOUT_MS,
      allowedNetworks: vars.WEBHOOK_ALLOWED_NETWORKS,
      disableAfterMs: vars.WEBHOOK_DISABLE_AFTER,
    },
    http: {
      trustedProxies: vars.TRUSTED_PROXIES,
      publicUrl: vars.PUBLIC_URL,
      unauthenticatedRateLimitPerMinute: vars.UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE,
      unauthenticatedBurstPerMinute: vars.UNAUTHENTICATED_BURST_PER_MINUTE,
      headersTimeoutMs: vars.HTTP_HEADERS_TIMEOUT,
      requestTimeoutMs: vars.HTTP_REQUEST_TIMEOUT,
      keepAliveTimeoutMs: vars.HTTP_KEEP_ALIVE_TIMEOUT,
      maxConnections: vars.HTTP_MAX_CONNECTIONS,
    },
    tracing: tracingFrom(vars),
    dashboard,
  };
}

function dashboardFrom(vars: Environment): DashboardSettings {
  const problems: string[] = [];
  const issuer = vars.OIDC_ISSUER;
  const redirectUrl = vars.OIDC_REDIRECT_URL ?? (vars.PUBLIC_URL === undefined ? undefined : `${vars.PUBLIC_URL}/auth/callback`);
  if (issuer !== undefined) {
    if (vars.OIDC_CLIENT_ID === undefined) problems.push('OIDC_CLIENT_ID: required with OIDC_ISSUER');
    if (redirectUrl === undefined) problems.push('OIDC_REDIRECT_URL: required with OIDC_ISSUER unless PUBLIC_URL is set');
    if (!vars.OIDC_SCOPES.split(/\s+/).includes('openid')) problems.push('OIDC_SCOPES: must include openid');
  } else if (!vars.DASHBOARD_TOKEN_SIGN_IN) {
    problems.push('DASHBOARD_TOKEN_SIGN_IN: false needs OIDC_ISSUER (no way to sign in otherwise)');
  }
  if (vars.SESSION_IDLE_TIMEOUT > vars.SESSION_MAX_AGE) problems.push('SESSION_IDLE_TIMEOUT: must not be longer than SESSION_MAX_AGE');
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    tokenSignIn: vars.DASHBOARD_TOKEN_SIGN_IN,
    sessionIdleTimeoutMs: vars.SESSION_IDLE_TIMEOUT,
    sessionMaxAgeMs: vars.SESSION_MAX_AGE,
    sso:
      issuer === undefined || vars.OIDC_CLIENT_ID === undefined || redirectUrl === undefined
        ? undefined
        : {
            issuer,
            clientId: vars.OIDC_CLIENT_ID,
            clientSecret: vars.OIDC_CLIENT_SECRET === undefined ? undefined : new Secret(vars.OIDC_CLIENT_SECRET),
            redirectUrl,
            scopes: vars.OIDC_SCOPES,
            groupsClaim: vars.OIDC_GROUPS_CLAIM,
            refreshIntervalMs: vars.OIDC_REFRESH_INTERVAL,
          },
  };
}

const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
const REDIS_PORT = 6379;
const SENTINEL_PORT = 26379;

/**
 * REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS: exactly one. REDIS_URL keeps its default only
 * while neither of the others is set, so a deployment that never set it keeps working unchanged.
 */
function redisTopologyFrom(vars: Environment): RedisTopology {
  const clusterNodes = nonEmpty(vars.REDIS_CLUSTER_NODES);
  const sentinels = nonEmpty(vars.REDIS_SENTINELS);
  const chosen = [vars.REDIS_URL && 'REDIS_URL', clusterNodes && 'REDIS_CLUSTER_NODES', sentinels && 'REDIS_SENTINELS'].filter(Boolean);
  const problems: string[] = [];
  if (chosen.length > 1) problems.push(`${chosen.join(', ')}: set only one of them (one server, a Redis Cluster, or Sentinel)`);
  if (sentinels && vars.REDIS_SENTINEL_NAME === undefined) problems.push('REDIS_SENTINEL_NAME: required with REDIS_SENTINELS (the name of the master the sentinels watch)');
  if (!sentinels && vars.REDIS_SENTINEL_NAME !== undefined) problems.push('REDIS_SENTINEL_NAME: only with REDIS_SENTINELS');
  if (!sentinels && vars.REDIS_SENTINEL_PASSWORD !== undefined) problems.push('REDIS_SENTINEL_PASSWORD: only with REDIS_SENTINELS');
  if (!clusterNodes && !sentinels) {
    // One server's URL carries its credentials and TLS (rediss://): one way to say each.
    for (const name of ['REDIS_USERNAME', 'REDIS_PASSWORD', 'REDIS_TLS'] as const) {
      if (vars[name] !== undefined) problems.push(`${name}: only with REDIS_CLUSTER_NODES or REDIS_SENTINELS; put a single server's credentials in REDIS_URL (rediss:// for TLS)`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const access: RedisNodeAccess = {
    username: vars.REDIS_USERNAME,
    password: vars.REDIS_PASSWORD === undefined ? undefined : new Secret(vars.REDIS_PASSWORD),
    tls: vars.REDIS_TLS ?? false,
  };
  if (clusterNodes) return { kind: 'cluster', nodes: withPort(clusterNodes, REDIS_PORT), ...access };
  if (sentinels) {
    return {
      kind: 'sentinel',
      sentinels: withPort(sentinels, SENTINEL_PORT),
      masterName: vars.REDIS_SENTINEL_NAME as string,
      sentinelPassword: vars.REDIS_SENTINEL_PASSWORD === undefined ? undefined : new Secret(vars.REDIS_SENTINEL_PASSWORD),
      ...access,
    };
  }
  return { kind: 'server', url: new Secret(vars.REDIS_URL ?? DEFAULT_REDIS_URL) };
}

/** An empty list (the variable set to "") means unset. */
function nonEmpty<T>(list: readonly T[] | undefined): readonly T[] | undefined {
  return list === undefined || list.length === 0 ? undefined : list;
}

function withPort(nodes: readonly { host: string; port?: number }[], defaultPort: number): RedisNode[] {
  return nodes.map(({ host, port }) => ({ host, port: port ?? defaultPort }));
}

const TRACING_VARIABLES = { OTEL_EXPORTER_OTLP_ENDPOINT: true, OTEL_SERVICE_NAME: true, OTEL_TRACES_SAMPLER_ARG: true } as const;

/**
 * The tracing settings alone, for the preload that runs before anything else is loaded. A bad
 * variable leaves tracing off here; loadConfig then reports it with every other one.
 */
export function tracingSettings(env: NodeJS.ProcessEnv = process.env): TracingSettings | undefined {
  const parsed = environmentSchema.pick(TRACING_VARIABLES).safeParse(env);
  return parsed.success ? tracingFrom(parsed.data) : undefined;
}

function tracingFrom(vars: Pick<Environment, keyof typeof TRACING_VARIABLES>): TracingSettings | undefined {
  if (vars.OTEL_EXPORTER_OTLP_ENDPOINT === undefined) return undefined;
  return { endpoint: vars.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: vars.OTEL_SERVICE_NAME ?? 'foresight', sampleRatio: vars.OTEL_TRACES_SAMPLER_ARG };
}

/** A hex secret generated on first use and kept (mode 0600) so restarts keep the same value. */
function keptSecret(dataDir: string, name: string, bytes: number): string {
  const file = join(dataDir, 'secrets', name);
  if (existsSync(file)) {
    return readFileSync(file, 'utf8').trim();
  }
  mkdirSync(join(dataDir, 'secrets'), { recursive: true, mode: 0o700 });
  const value = randomBytes(bytes).toString('hex');
  writeFileSync(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
  return value;
}
