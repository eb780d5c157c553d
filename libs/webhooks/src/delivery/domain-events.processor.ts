import { Processor, WorkerHost } from '@nestjs/bullmq';
import type { Job } from 'bullmq';
import { JOBS, QUEUES, type JobPayloads } from '@foresight/platform';
import { FanOutService } from './fan-out.service';

type Announcement = JobPayloads[typeof JOBS.domainEvents.announce];

/** Translates announced domain events to fan-out calls. */
@Processor(QUEUES.domainEvents)
export class DomainEventsProcessor extends WorkerHost {
  constructor(private readonly fanOut: FanOutService) {
    super();
  }

  async process(job: Job<Announcement>): Promise<{ deliveries: number }> {
    if (job.name !== JOBS.domainEvents.announce) throw new Error(`unknown job ${job.name} on ${QUEUES.domainEvents}`);
    return { deliveries: await this.fanOut.announce(job.data) };
  }
}
