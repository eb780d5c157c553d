import { redisTarget } from '../redis/redis-outage-log';
import type { AppConfig } from './config';

/** What the API process serves where, for the one line it logs once it listens. */
export interface StartupSummary {
  readonly version: string;
  readonly node: string;
  readonly api: string;
  readonly docs: string;
  /** Only when the process serves the dashboard. */
  readonly dashboard?: string;
  readonly metrics: string;
  readonly database: string;
  readonly redis: string;
  readonly worker: string;
}

export interface StartupFacts {
  readonly version: string;
  readonly nodeVersion: string;
  readonly dashboardServed: boolean;
}

/**
 * Addresses a person can open and the stores in use. Connection strings are reduced to host, port and
 * database: user names, passwords and query parameters never reach the log.
 */
export function startupSummary(config: AppConfig, facts: StartupFacts): StartupSummary {
  const base = `http://${browsableHost(config.host)}:${config.port}`;
  return {
    version: facts.version,
    node: facts.nodeVersion,
    api: `${base}/v1`,
    docs: `${base}/v1/docs`,
    ...(facts.dashboardServed ? { dashboard: `${base}/dashboard` } : {}),
    metrics: `http://${browsableHost(config.host)}:${config.metricsPort}/metrics`,
    database: config.databaseUrl
      ? `PostgreSQL ${endpoint(config.databaseUrl.reveal(), 5432)}${new URL(config.databaseUrl.reveal()).pathname}`
      : `embedded PGlite in ${config.dataDir}`,
    redis: `Redis ${redisTarget(config.redis)}`,
    worker: config.workerMode === 'inline' ? 'inline (background jobs run in this process)' : 'off (background jobs run in worker processes)',
  };
}

export function startupLine(summary: StartupSummary): string {
  const dashboard = summary.dashboard ? `, dashboard ${summary.dashboard}` : '';
  return (
    `Foresight ${summary.version} on Node.js ${summary.node}: API ${summary.api}, docs ${summary.docs}${dashboard}, ` +
    `metrics ${summary.metrics}; database ${summary.database}; ${summary.redis}; worker ${summary.worker}`
  );
}

/** A wildcard bind address is reachable as localhost from the machine itself. */
function browsableHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '[::]') return 'localhost';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function endpoint(url: string, defaultPort: number): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || defaultPort}`;
}
