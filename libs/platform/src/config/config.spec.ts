import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, tracingSettings } from './config';

const external = {
  DATABASE_URL: 'postgres://u:p@db:5432/foresight',
  TOKEN_PEPPER: 'p'.repeat(32),
  ENCRYPTION_KEY: 'a'.repeat(64),
};

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({ ...external });
    expect(config).toMatchObject({
      port: 3000,
      region: 'eu',
      redisPrefix: 'foresight:',
      metricsPort: 9464,
      workerMode: 'off',
      embedded: false,
    });
    expect(config.redis).toMatchObject({ kind: 'server' });
    expect(config.redis.kind === 'server' && config.redis.url.reveal()).toBe('redis://127.0.0.1:6379');
  });

  it('reads a Redis Cluster or Sentinel topology, with credentials kept secret and default ports', () => {
    const cluster = loadConfig({ ...external, REDIS_CLUSTER_NODES: 'r1:7000, r2 ,[fd00::3]:7002', REDIS_PASSWORD: 'cluster pw', REDIS_USERNAME: 'app', REDIS_TLS: 'true' });
    expect(cluster.redis).toMatchObject({
      kind: 'cluster',
      nodes: [
        { host: 'r1', port: 7000 },
        { host: 'r2', port: 6379 },
        { host: 'fd00::3', port: 7002 },
      ],
      username: 'app',
      tls: true,
    });
    expect(cluster.redis.kind === 'cluster' && cluster.redis.password?.reveal()).toBe('cluster pw');
    expect(JSON.stringify(cluster)).not.toContain('cluster pw');
    const sentinel = loadConfig({ ...external, REDIS_SENTINELS: 's1,s2:26380', REDIS_SENTINEL_NAME: 'main', REDIS_SENTINEL_PASSWORD: 'spw' });
    expect(sentinel.redis).toMatchObject({ kind: 'sentinel', masterName: 'main', tls: false, sentinels: [{ host: 's1', port: 26379 }, { host: 's2', port: 26380 }] });
    expect(sentinel.redis.kind === 'sentinel' && sentinel.redis.sentinelPassword?.reveal()).toBe('spw');
    // Empty values (a chart leaving them unset) are unset: the default single server applies.
    expect(loadConfig({ ...external, REDIS_CLUSTER_NODES: '', REDIS_SENTINELS: '', REDIS_PASSWORD: '' }).redis.kind).toBe('server');
  });

  it('refuses more than one Redis topology, and settings that belong to another one', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig({ ...external, ...env });
      } catch (error) {
        return (error as ConfigError).problems;
      }
      return [];
    };
    expect(problems({ REDIS_URL: 'redis://r:6379', REDIS_CLUSTER_NODES: 'r1:7000' })).toEqual([expect.stringMatching(/^REDIS_URL, REDIS_CLUSTER_NODES: set only one/)]);
    expect(problems({ REDIS_CLUSTER_NODES: 'r1:7000', REDIS_SENTINELS: 's1' })).toEqual([
      expect.stringMatching(/^REDIS_CLUSTER_NODES, REDIS_SENTINELS: set only one/),
      expect.stringMatching(/^REDIS_SENTINEL_NAME: required with REDIS_SENTINELS/),
    ]);
    expect(problems({ REDIS_SENTINEL_NAME: 'main', REDIS_PASSWORD: 'pw' })).toEqual([
      'REDIS_SENTINEL_NAME: only with REDIS_SENTINELS',
      expect.stringMatching(/^REDIS_PASSWORD: only with REDIS_CLUSTER_NODES or REDIS_SENTINELS; put a single server's credentials in REDIS_URL/),
    ]);
    expect(problems({ REDIS_CLUSTER_NODES: 'r1:99999,bad host' }).join('\n')).toMatch(/REDIS_CLUSTER_NODES[\s\S]*"r1:99999" is not host:port[\s\S]*"bad host" is not host:port/);
  });

  it('allows braces in REDIS_PREFIX only as one leading hash tag', () => {
    expect(loadConfig({ ...external, REDIS_PREFIX: '{shop}:' }).redisPrefix).toBe('{shop}:');
    for (const prefix of ['shop:{a}', '{a}{b}', '{}:', 'sh{op', '{shop']) expect(() => loadConfig({ ...external, REDIS_PREFIX: prefix })).toThrow(/REDIS_PREFIX/);
  });

  it('lists every bad variable at once', () => {
    const attempt = () => loadConfig({ PORT: 'eighty', REGION: 'mars', REDIS_URL: 'http://x', ENCRYPTION_KEY: 'short' });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (error) {
      const problems = (error as ConfigError).problems.join('\n');
      for (const name of ['PORT', 'REGION', 'REDIS_URL', 'ENCRYPTION_KEY']) expect(problems).toContain(name);
    }
  });

  it('requires the secrets when an external database is configured', () => {
    expect(() => loadConfig({ DATABASE_URL: external.DATABASE_URL })).toThrow(/TOKEN_PEPPER[\s\S]*ENCRYPTION_KEY/);
  });

  it('generates and keeps embedded secrets in DATA_DIR, readable only by the owner', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'foresight-config-'));
    const first = loadConfig({ DATA_DIR: dataDir });
    const second = loadConfig({ DATA_DIR: dataDir });
    expect(first.embedded).toBe(true);
    expect(first.workerMode).toBe('inline');
    expect(first.tokenPepper.reveal()).toMatch(/^[0-9a-f]{64}$/);
    expect(second.tokenPepper.reveal()).toBe(first.tokenPepper.reveal());
    expect(readFileSync(join(dataDir, 'secrets', 'token-pepper'), 'utf8').trim()).toBe(first.tokenPepper.reveal());
    expect(statSync(join(dataDir, 'secrets', 'token-pepper')).mode & 0o077).toBe(0);
  });

  it('never prints secrets', () => {
    const config = loadConfig({ ...external });
    const printed = JSON.stringify(config) + String(config.tokenPepper);
    expect(printed).not.toContain(external.TOKEN_PEPPER);
    expect(printed).not.toContain('u:p@db');
  });

  it('reads the database topology: pool mode, idle timeout, a read replica and its allowed lag, with defaults', () => {
    expect(loadConfig({ ...external })).toMatchObject({
      databasePoolMode: 'session',
      databaseIdleTimeoutMs: 10_000,
      databaseReadUrl: undefined,
      databaseReadMaxLagSeconds: 30,
    });
    const config = loadConfig({
      ...external,
      DATABASE_POOL_MODE: 'transaction',
      DATABASE_IDLE_TIMEOUT: '500ms',
      DATABASE_READ_URL: 'postgresql://reader:secret@replica:5432/foresight',
      DATABASE_READ_MAX_LAG: '2m',
    });
    expect(config).toMatchObject({ databasePoolMode: 'transaction', databaseIdleTimeoutMs: 500, databaseReadMaxLagSeconds: 120 });
    expect(config.databaseReadUrl?.reveal()).toBe('postgresql://reader:secret@replica:5432/foresight');
    expect(JSON.stringify(config)).not.toContain('reader:secret');
  });

  it('refuses a bad pool mode, durations and read URL, all at once, and a read replica without DATABASE_URL', () => {
    const attempt = () =>
      loadConfig({ ...external, DATABASE_POOL_MODE: 'statement', DATABASE_IDLE_TIMEOUT: '10', DATABASE_READ_URL: 'mysql://replica/foresight', DATABASE_READ_MAX_LAG: 'soon' });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (error) {
      const problems = (error as ConfigError).problems.join('\n');
      for (const name of ['DATABASE_POOL_MODE', 'DATABASE_IDLE_TIMEOUT', 'DATABASE_READ_URL', 'DATABASE_READ_MAX_LAG']) expect(problems).toContain(name);
    }
    const dataDir = mkdtempSync(join(tmpdir(), 'foresight-config-'));
    expect(() => loadConfig({ DATA_DIR: dataDir, DATABASE_READ_URL: 'postgres://replica:5432/foresight' })).toThrow(/DATABASE_READ_URL: needs DATABASE_URL/);
  });

  it('reads the HTTP edge settings: trusted proxies, public URL, the unauthenticated limit, timeouts and connections', () => {
    expect(loadConfig({ ...external }).http).toEqual({
      trustedProxies: [],
      publicUrl: undefined,
      unauthenticatedRateLimitPerMinute: 60,
      unauthenticatedBurstPerMinute: 120,
      headersTimeoutMs: 15_000,
      requestTimeoutMs: 60_000,
      keepAliveTimeoutMs: 72_000,
      maxConnections: 10_000,
    });
    const config = loadConfig({
      ...external,
      TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.7,fd00::/8',
      PUBLIC_URL: 'https://foresight.example.com/api/',
      UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '10',
      UNAUTHENTICATED_BURST_PER_MINUTE: '30',
      HTTP_HEADERS_TIMEOUT: '10s',
      HTTP_REQUEST_TIMEOUT: '2m',
      HTTP_KEEP_ALIVE_TIMEOUT: '620s',
      HTTP_MAX_CONNECTIONS: '2000',
    });
    expect(config.http).toEqual({
      trustedProxies: ['10.0.0.0/8', '192.0.2.7', 'fd00::/8'],
      publicUrl: 'https://foresight.example.com/api',
      unauthenticatedRateLimitPerMinute: 10,
      unauthenticatedBurstPerMinute: 30,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 120_000,
      keepAliveTimeoutMs: 620_000,
      maxConnections: 2000,
    });
    expect(loadConfig({ ...external, PUBLIC_URL: '' }).http.publicUrl).toBeUndefined();
  });

  it('refuses proxies that are not addresses, links with a query, a burst not above the rate, and timeouts that never end', () => {
    for (const [name, value] of [
      ['HTTP_HEADERS_TIMEOUT', '0s'],
      ['HTTP_HEADERS_TIMEOUT', '2m'],
      ['HTTP_KEEP_ALIVE_TIMEOUT', '0ms'],
      ['HTTP_MAX_CONNECTIONS', '0'],
      ['TRUSTED_PROXIES', 'proxy.internal'],
      ['TRUSTED_PROXIES', '10.0.0.0/33'],
      ['TRUSTED_PROXIES', 'true'],
      ['PUBLIC_URL', 'https://x.example/?next=evil'],
      ['PUBLIC_URL', 'ftp://x.example'],
      ['UNAUTHENTICATED_BURST_PER_MINUTE', '60'],
    ]) {
      expect(() => loadConfig({ ...external, [name]: value })).toThrow(name);
    }
  });

  it('turns tracing on only with a collector endpoint, named after OTEL_SERVICE_NAME', () => {
    expect(loadConfig({ ...external }).tracing).toBeUndefined();
    expect(loadConfig({ ...external, OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_SERVICE_NAME: 'x' }).tracing).toBeUndefined();
    expect(loadConfig({ ...external, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318/' }).tracing).toEqual({
      endpoint: 'http://otel-collector:4318',
      serviceName: 'foresight',
      sampleRatio: 1,
    });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example', OTEL_SERVICE_NAME: 'acme', OTEL_TRACES_SAMPLER_ARG: '0.25' })).toEqual({
      endpoint: 'https://collector.example',
      serviceName: 'acme',
      sampleRatio: 0.25,
    });
  });

  it('refuses a collector that is not an http(s) address and a sampling ratio outside 0..1; the preload then stays off', () => {
    for (const [name, value] of [
      ['OTEL_EXPORTER_OTLP_ENDPOINT', 'otel-collector:4318'],
      ['OTEL_EXPORTER_OTLP_ENDPOINT', 'grpc://otel-collector:4317'],
      ['OTEL_TRACES_SAMPLER_ARG', '1.5'],
      ['OTEL_TRACES_SAMPLER_ARG', ''],
      ['OTEL_TRACES_SAMPLER_ARG', 'half'],
    ]) {
      const env = { ...external, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318', [name]: value };
      expect(() => loadConfig(env)).toThrow(name);
      expect(tracingSettings(env)).toBeUndefined();
    }
  });

  describe('single sign-on', () => {
    const sso = {
      ...external,
      OIDC_ISSUER: 'https://id.example.com/realms/acme/',
      OIDC_CLIENT_ID: 'foresight',
      OIDC_CLIENT_SECRET: 'client-secret-value',
      PUBLIC_URL: 'https://foresight.example.com',
    };

    it('is off without OIDC_ISSUER, with token sign-in on', () => {
      expect(loadConfig({ ...external }).dashboard).toEqual({ tokenSignIn: true, sessionIdleTimeoutMs: 30 * 60_000, sessionMaxAgeMs: 12 * 3_600_000, sso: undefined });
    });

    it('reads the provider and the intervals, the redirect defaulting under PUBLIC_URL, the secret redacted', () => {
      const config = loadConfig({ ...sso, OIDC_REFRESH_INTERVAL: '1m', DASHBOARD_TOKEN_SIGN_IN: 'false' });
      expect(config.dashboard).toMatchObject({
        tokenSignIn: false,
        sso: {
          issuer: 'https://id.example.com/realms/acme',
          clientId: 'foresight',
          redirectUrl: 'https://foresight.example.com/auth/callback',
          scopes: 'openid profile email',
          groupsClaim: 'groups',
          refreshIntervalMs: 60_000,
        },
      });
      expect(config.dashboard.sso?.clientSecret?.reveal()).toBe('client-secret-value');
      expect(JSON.stringify(config)).not.toContain('client-secret-value');
    });

    it('refuses an incomplete or unsafe configuration, naming the variable', () => {
      const { PUBLIC_URL: _publicUrl, ...withoutPublicUrl } = sso;
      for (const [name, env] of [
        ['OIDC_CLIENT_ID', { ...sso, OIDC_CLIENT_ID: '' }],
        ['OIDC_REDIRECT_URL', withoutPublicUrl],
        ['OIDC_ISSUER', { ...sso, OIDC_ISSUER: 'http://id.example.com' }],
        ['OIDC_SCOPES', { ...sso, OIDC_SCOPES: 'profile email' }],
        ['DASHBOARD_TOKEN_SIGN_IN', { ...external, DASHBOARD_TOKEN_SIGN_IN: 'false' }],
        ['SESSION_IDLE_TIMEOUT', { ...sso, SESSION_IDLE_TIMEOUT: '2d' }],
      ] as const) {
        expect(() => loadConfig(env)).toThrow(name);
      }
    });

    it('allows a plain-http issuer on a loopback address only (a provider on the same machine)', () => {
      expect(loadConfig({ ...sso, OIDC_ISSUER: 'http://localhost:8080/realms/dev' }).dashboard.sso?.issuer).toBe('http://localhost:8080/realms/dev');
    });
  });
});
