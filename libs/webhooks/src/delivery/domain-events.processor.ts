import { Processor, WorkerHost } from '@nestjs/bullmq';
import type { Job } from 'bullmq';
import { dispatchJob, type JobHandlers, JOBS, QUEUES } from '@foresight/platform';
import { FanOutService } from './fan-out.service';

/** Translates announced domain events to fan-out calls. */
@Processor(QUEUES.domainEvents)
export class DomainEventsProcessor extends WorkerHost {
  private readonly handlers: JobHandlers<'domainEvents', { deliveries: number }> = {
    [JOBS.domainEvents.announce]: async (job) => ({ deliveries: await this.fanOut.announce(job.data) }),
  };

  constructor(private readonly fanOut: FanOutService) {
    super();
  }

  process(job: Job): Promise<{ deliveries: number }> {
    return dispatchJob('domainEvents', this.handlers, job);
  }
}
