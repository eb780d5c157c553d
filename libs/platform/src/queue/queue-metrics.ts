import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import { Gauge, Registry } from 'prom-client';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config';
import { QUEUES } from './queue-contract';

const STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/** `foresight_queue_jobs{queue,state}`, read from Redis when Prometheus scrapes (so every worker reports the shared truth). */
@Injectable()
export class QueueMetrics implements OnApplicationShutdown {
  private readonly queues: Queue[];

  constructor(@Inject(APP_CONFIG) config: AppConfig, registry: Registry) {
    const connection = { url: config.redisUrl.reveal(), maxRetriesPerRequest: null };
    this.queues = Object.values(QUEUES).map((name) => new Queue(name, { connection, prefix: `${config.redisPrefix}bull` }));
    const queues = this.queues;
    new Gauge({
      name: 'foresight_queue_jobs',
      help: 'BullMQ jobs per queue and state',
      labelNames: ['queue', 'state'] as const,
      registers: [registry],
      async collect() {
        const counts = await Promise.all(queues.map((queue) => queue.getJobCounts(...STATES)));
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
