import { Worker } from 'bullmq';
import { type DomainEvent, QUEUES } from '@foresight/platform';
import type { FanOutService } from '../../libs/webhooks/src/delivery/fan-out.service';
import { REDIS_URL } from './services';

/** Fans out what the domain events queue under `prefix` holds, as the worker's processor does, until it is empty; a failed fan-out fails the call. */
export async function fanOutQueued(fanOut: FanOutService, prefix: string): Promise<void> {
  const worker = new Worker<DomainEvent>(QUEUES.domainEvents, (job) => fanOut.announce(job.data), { connection: { url: REDIS_URL }, prefix });
  try {
    await new Promise<void>((resolve, reject) => {
      worker.on('drained', () => resolve());
      worker.on('failed', (_job, error) => reject(error));
    });
  } finally {
    await worker.close();
  }
}
