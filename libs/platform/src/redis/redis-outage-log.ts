import type { RedisNode, RedisTopology } from '../config/config';
import type { Logger } from '../logging/logger';

/** At most one "unreachable" line per outage, and never more often than this, however the connection flaps. */
const REPEAT_AFTER_MS = 60_000;

/**
 * Redis connection errors, told once per outage. Every connection notices an outage on its own (the
 * request client, each BullMQ queue and worker, on every reconnect attempt): unfiltered, that is
 * hundreds of identical lines a minute. One process-wide log because BullMQ's classes are built by
 * @nestjs/bullmq, out of reach of injection; errors seen before the logger exists are told once it does.
 */
export class RedisOutageLog {
  private logger: Logger | undefined;
  private target = 'Redis';
  private down = false;
  private pending: Error | undefined;
  private lastToldAt = -Infinity;

  attach(logger: Logger, target: string): void {
    this.logger = logger;
    this.target = target;
    if (this.pending) this.failed(this.pending);
    this.pending = undefined;
  }

  failed(error: Error): void {
    if (!this.logger) {
      this.pending ??= error;
      return;
    }
    if (this.down && Date.now() - this.lastToldAt < REPEAT_AFTER_MS) return;
    this.down = true;
    this.lastToldAt = Date.now();
    this.logger.error(
      { redis: this.target, reason: (error as { code?: string }).code ?? error.message },
      'Redis is unreachable: queues, rate limits and caches wait for it, routes that need it answer 503, /readyz reports it; reconnecting in the background',
    );
  }

  recovered(): void {
    if (!this.down) return;
    this.down = false;
    this.logger?.info({ redis: this.target }, 'Redis is reachable again');
  }
}

export const redisOutageLog = new RedisOutageLog();

/** Where Redis is, without any credential, for log lines: the server, the cluster's seed nodes, or the sentinels and their master's name. */
export function redisTarget(topology: RedisTopology): string {
  switch (topology.kind) {
    case 'server': {
      const parsed = new URL(topology.url.reveal());
      return `${parsed.hostname}:${parsed.port || '6379'}`;
    }
    case 'cluster':
      return `Cluster ${endpoints(topology.nodes)}`;
    case 'sentinel':
      return `Sentinel master "${topology.masterName}" via ${endpoints(topology.sentinels)}`;
  }
}

function endpoints(nodes: readonly RedisNode[]): string {
  return nodes.map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`).join(',');
}
