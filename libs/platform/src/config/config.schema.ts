import { isIP } from 'node:net';
import { z } from 'zod';
import { DAY_MS } from '../time/durations';
import { cronExpression } from './cron-expression';

const port = z.coerce.number().int().min(1).max(65535);
const optionalText = z.string().trim().min(1).optional();

const DURATION_UNITS_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: DAY_MS } as const;
type DurationUnit = keyof typeof DURATION_UNITS_MS;

/** `500ms`, `5s`, `5m`, `2h`, `5d` → milliseconds. */
const duration = z
  .string()
  .regex(/^\d+(ms|s|m|h|d)$/, 'a duration such as 500ms, 5s, 5m, 2h or 5d')
  .transform((text) => {
    const [, amount, unit] = /^(\d+)(ms|s|m|h|d)$/.exec(text) as RegExpExecArray;
    return Number(amount) * DURATION_UNITS_MS[unit as DurationUnit];
  });

/** A duration that is not 0: for the HTTP timeouts, where Node reads 0 as "never". */
const positiveDuration = duration.refine((ms) => ms > 0, 'a duration above 0');

/** `10.0.0.0/8` or `fd00::/8`, in the shape node:net's BlockList.addSubnet takes; undefined if it is none. */
function cidrBlock(text: string) {
  const [network = '', bits = ''] = text.split('/');
  const family = isIP(network);
  const prefix = Number(bits);
  if (family === 0 || !/^\d{1,3}$/.test(bits) || prefix > (family === 4 ? 32 : 128)) return undefined;
  return { network, prefix, type: family === 4 ? ('ipv4' as const) : ('ipv6' as const) };
}

const subnet = z.string().transform((text, ctx) => {
  const block = cidrBlock(text);
  if (block) return block;
  ctx.addIssue({ code: 'custom', message: 'a CIDR block such as 10.0.0.0/8 or fd00::/8' });
  return z.NEVER;
});

/** `10.0.0.7`, `10.0.0.0/8` or `fd00::/8`, as Fastify's trustProxy takes them. */
const addressOrSubnet = z
  .string()
  .refine((text) => (text.includes('/') ? cidrBlock(text) !== undefined : isIP(text) !== 0), 'an IP address or a CIDR block such as 10.0.0.0/8');

/** An http(s) base address without a trailing slash; empty means unset. */
const baseAddress = (address: z.ZodType<string, string>) =>
  z
    .string()
    .trim()
    .transform((text) => (text === '' ? undefined : text.replace(/\/+$/, '')))
    .pipe(address.optional());

/** The service's public base address, without a query or fragment. */
const publicUrl = baseAddress(z.url({ protocol: /^https?$/ }).refine((text) => !/[?#]/.test(text), 'no query string or fragment'));

/** A comma-separated list; empty means none. */
const listOf = <T extends z.ZodType<unknown, string>>(item: T) =>
  z
    .string()
    .transform((text) => text.split(',').map((part) => part.trim()).filter((part) => part !== ''))
    .pipe(z.array(item));

/** `true` or `false` (an unset variable takes the default). */
const flag = z.enum(['true', 'false']).transform((text) => text === 'true');

/** A password: taken as written (spaces are characters of it); empty means unset. */
const secretText = z
  .string()
  .transform((text) => (text === '' ? undefined : text))
  .optional();

/** `host:port`, `host` (the port then comes from the topology) or `[ipv6]:port`. */
const redisNode = z.string().transform((text, ctx) => {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+))(?::(\d{1,5}))?$/.exec(text);
  const port = match?.[3] === undefined ? undefined : Number(match[3]);
  if (match && (port === undefined || (port >= 1 && port <= 65535))) return { host: match[1] ?? match[2] ?? '', port };
  ctx.addIssue({ code: 'custom', message: `"${text}" is not host:port` });
  return z.NEVER;
});

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** An OpenID issuer: https, or http on a loopback address only (a provider on the same machine, as in tests). */
const issuerAddress = baseAddress(
  z.url({ protocol: /^https?$/ }).refine((text) => {
    const url = new URL(text);
    return url.protocol === 'https:' || LOOPBACK_HOSTS.has(url.hostname);
  }, 'https (http only on localhost)'),
);

/** Every environment variable the service reads, with defaults. Validated once, before start-up. */
export const environmentSchema = z.object({
  PORT: port.default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  /**
   * `session`: DATABASE_URL reaches PostgreSQL directly or through a session pooler, and hot reads keep
   * named prepared statements. `transaction`: a transaction pooler (PgBouncer pool_mode=transaction,
   * RDS Proxy, pgcat, Supavisor) shares server sessions, so no session state is kept.
   */
  DATABASE_POOL_MODE: z.enum(['session', 'transaction']).default('session'),
  /** A pooled connection unused this long is closed (pg's idleTimeoutMillis). */
  DATABASE_IDLE_TIMEOUT: duration.prefault('10s'),
  /** A streaming replica for heavy reads (exports, monitoring, dashboard aggregates, training and scoring cursors). */
  DATABASE_READ_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  /** Reads leave a replica that lags more than this behind the primary, and return once it has caught up. */
  DATABASE_READ_MAX_LAG: duration.prefault('30s'),
  DATA_DIR: z.string().min(1).default('./.data'),
  /** One Redis server; the default when neither REDIS_CLUSTER_NODES nor REDIS_SENTINELS is set. */
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  /** Redis Cluster: some of its nodes (the rest are discovered). */
  REDIS_CLUSTER_NODES: listOf(redisNode).optional(),
  /** Redis Sentinel: the sentinels, and the name of the master they watch. */
  REDIS_SENTINELS: listOf(redisNode).optional(),
  REDIS_SENTINEL_NAME: optionalText,
  /** ACL user and password of the cluster nodes, or of the master and replicas behind the sentinels (REDIS_URL carries its own). */
  REDIS_USERNAME: optionalText,
  REDIS_PASSWORD: secretText,
  /** The sentinels' own password, when they require one (`requirepass` in sentinel.conf). */
  REDIS_SENTINEL_PASSWORD: secretText,
  /** TLS to the cluster nodes, or to the sentinels and the master (REDIS_URL says it with rediss://). */
  REDIS_TLS: flag.optional(),
  /** Braces only as one leading hash tag (`{foresight}:`), which puts every key of the deployment in one Redis Cluster slot. */
  REDIS_PREFIX: z
    .string()
    .regex(/^(\{[A-Za-z0-9:_-]+\})?[A-Za-z0-9:_-]*$/, 'letters, digits, ":", "_" and "-" only, with braces only as one leading hash tag such as {foresight}:')
    .default('foresight:'),
  TOKEN_PEPPER: z.string().min(32, 'at least 32 characters').optional(),
  ENCRYPTION_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, '64 hexadecimal characters (a 256-bit key)')
    .optional(),
  /** Keys that sealed older rows: still decrypt, never encrypt (rotation re-encrypts under ENCRYPTION_KEY). */
  ENCRYPTION_PREVIOUS_KEYS: listOf(z.string().regex(/^[0-9a-fA-F]{64}$/, '64 hexadecimal characters (a 256-bit key)')).prefault(''),
  REGION: z.enum(['eu', 'us']).default('eu'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  METRICS_PORT: port.default(9464),
  WORKER_MODE: z.enum(['inline', 'off']).optional(),
  /** Base name of the traced services: the API reports `<name>-api`, the worker `<name>-worker`. */
  OTEL_SERVICE_NAME: optionalText,
  /** OTLP/HTTP (protobuf) collector, e.g. http://otel-collector:4318 (`/v1/traces` is appended). Unset or empty: no tracing, the SDK is not even loaded. */
  OTEL_EXPORTER_OTLP_ENDPOINT: baseAddress(z.url({ protocol: /^https?$/ })).optional(),
  /** Share of traces recorded, 0 to 1, decided where a trace starts; a job follows its request's decision. */
  OTEL_TRACES_SAMPLER_ARG: z.string().trim().min(1).pipe(z.coerce.number<string>().min(0).max(1)).default(1),
  /** When the monitoring job runs (outcomes, accuracy, drift): a five-field cron expression (at most once a minute). */
  MONITORING_SCHEDULE: cronExpression('7 * * * *').default('7 * * * *'),
  /** A training run fails unless at least this many users did the target event after a cutoff, and as many did not. */
  TRAINING_MIN_USERS_PER_CLASS: z.coerce.number().int().min(1).default(50),
  /** Organizations with more users train on a stratified sample of this many (serving still scores everyone). */
  TRAINING_MAX_USERS: z.coerce.number().int().min(1000).default(200_000),
  /** Users a bulk scoring run reads, scores and logs per chunk (its memory bound, and its checkpoint interval). */
  SCORING_CHUNK_USERS: z.coerce.number().int().min(1).max(20_000).default(4_000),
  /**
   * Most shards a bulk scoring run splits into (ranges of user id hashes): at most this many workers
   * score one run at once, each taking about an even share when there are several times more shards
   * than workers.
   */
  SCORING_SHARDS: z.coerce.number().int().min(1).max(1_024).default(64),
  /** Users per shard a run is cut for, up to SCORING_SHARDS: a small organization's run is one or a few jobs, not SCORING_SHARDS. */
  SCORING_SHARD_USERS: z.coerce.number().int().min(1).max(1_000_000).default(1_000),
  /**
   * Memory a process gives the ONNX Runtime sessions it serves from, in MiB (estimated from each model's
   * size): beyond it, the least recently used idle sessions are released and loaded again when asked for.
   */
  SERVING_MODEL_MEMORY_MB: z.coerce.number().int().min(16).default(512),
  /** When bulk scoring runs for every organization with serving models: a five-field cron expression. */
  SCORING_SCHEDULE: cronExpression('13 4 * * *').default('13 4 * * *'),
  /** Delay before each webhook retry; the number of entries is the number of retries (about 24 h by default). */
  WEBHOOK_RETRY_SCHEDULE: listOf(duration).prefault('5s,5m,30m,2h,5h,10h,10h'),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Private networks webhook receivers may live in (loopback, RFC 1918, ULA…); link-local and metadata addresses stay refused. */
  WEBHOOK_ALLOWED_NETWORKS: listOf(subnet).prefault(''),
  /** A webhook whose deliveries keep failing this long is disabled. */
  WEBHOOK_DISABLE_AFTER: duration.prefault('5d'),
  /** Reverse proxies whose X-Forwarded-* headers are believed; empty: none, the peer is the client. */
  TRUSTED_PROXIES: listOf(addressOrSubnet).prefault(''),
  /** Base of absolute links the API writes (export's Link header); unset: the request's own Host. */
  PUBLIC_URL: publicUrl.optional(),
  /** Single sign-on for the dashboard (OpenID Connect); unset: no SSO, token sign-in only. */
  OIDC_ISSUER: issuerAddress.optional(),
  OIDC_CLIENT_ID: optionalText,
  /** Unset: a public client (PKCE alone). */
  OIDC_CLIENT_SECRET: optionalText,
  /** Where the provider sends the browser back; default `<PUBLIC_URL>/auth/callback`. */
  OIDC_REDIRECT_URL: z.url({ protocol: /^https?$/ }).optional(),
  OIDC_SCOPES: z.string().trim().min(1).default('openid profile email'),
  /** The claim (ID token or userinfo) whose values the grants name: a list of group names, or one. */
  OIDC_GROUPS_CLAIM: z.string().trim().min(1).default('groups'),
  /** How often a session asks the provider again (refresh token, userinfo): the delay before a removed or demoted person loses access. */
  OIDC_REFRESH_INTERVAL: positiveDuration.prefault('5m'),
  /** A dashboard session unused this long ends. */
  SESSION_IDLE_TIMEOUT: positiveDuration.prefault('30m'),
  /** A dashboard session ends this long after sign-in, however busy. */
  SESSION_MAX_AGE: positiveDuration.prefault('12h'),
  /** false: the dashboard offers single sign-on only (needs OIDC_ISSUER). */
  DASHBOARD_TOKEN_SIGN_IN: flag.prefault('true'),
  /** Requests without a verified token, per client address: sustained rate and one-minute burst. */
  UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(60),
  UNAUTHENTICATED_BURST_PER_MINUTE: z.coerce.number().int().min(2).max(2_000_000).default(120),
  /** A request's headers must all arrive within this, its body included within HTTP_REQUEST_TIMEOUT: a slow client gets 408 and the connection closes. */
  HTTP_HEADERS_TIMEOUT: positiveDuration.prefault('15s'),
  HTTP_REQUEST_TIMEOUT: positiveDuration.prefault('60s'),
  /** An idle kept-alive connection closes after this; keep it above the idle timeout of the load balancer in front (AWS ALB: 60 s). */
  HTTP_KEEP_ALIVE_TIMEOUT: positiveDuration.prefault('72s'),
  /** Connections one API process holds at once; more are closed as they arrive. Keep it under the open-file limit. */
  HTTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).default(10_000),
});

export type Environment = z.infer<typeof environmentSchema>;

/** Variables that have no usable default once an external database is configured. */
export const REQUIRED_WITH_EXTERNAL_DATABASE = ['TOKEN_PEPPER', 'ENCRYPTION_KEY'] as const;
