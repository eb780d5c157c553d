import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { ConnectionOptions, Queue } from 'bullmq';
import { Gauge, Registry } from 'prom-client';
import type { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { queuePrefix } from '../redis/redis-connections';
import { LoggedQueue } from './logged-bullmq';
import { QUEUE_CONNECTION } from './queue.module';
import { QUEUES } from './queue-contract';

/** A scrape must not hang while Redis is unreachable: the gauge keeps its last values. */
const COLLECT_DEADLINE_MS = 1_000;

const STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/** `foresight_queue_jobs{queue,state}`, read from Redis when Prometheus scrapes (so every worker reports the shared truth). */
@Injectable()
export class QueueMetricsService implements OnApplicationShutdown {
  private readonly queues: Queue[];

  constructor(@Inject(APP_CONFIG) config: AppConfig, @Inject(QUEUE_CONNECTION) connection: ConnectionOptions, registry: Registry) {
    const prefix = queuePrefix(config.redis.kind, config.redisPrefix);
    this.queues = Object.values(QUEUES).map((name) => new LoggedQueue(name, { connection, prefix }));
    const queues = this.queues;
    new Gauge({
      name: 'foresight_queue_jobs',
      help: 'BullMQ jobs per queue and state',
      labelNames: ['queue', 'state'] as const,
      registers: [registry],
      async collect() {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), COLLECT_DEADLINE_MS)));
        const read = Promise.all(queues.map((queue) => queue.getJobCounts(...STATES))).catch(() => undefined);
        const counts = await Promise.race([read, late]).finally(() => clearTimeout(timer));
        if (!counts) return;
        counts.forEach((byState, i) => {
          for (const state of STATES) this.set({ queue: queues[i].name, state }, byState[state] ?? 0);
        });
      },
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.queues.map((queue) => queue.close()));
  }
}
