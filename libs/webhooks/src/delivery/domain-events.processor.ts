import { Processor, WorkerHost } from '@nestjs/bullmq';
import type { OnApplicationBootstrap } from '@nestjs/common';
import type { Job } from 'bullmq';
import { BackgroundWork, dispatchJob, DomainEventsService, type JobHandlers, JOBS, QUEUES } from '@foresight/platform';
import { FanOutService } from './fan-out.service';

/** Translates announced domain events to fan-out calls, and queues again, from the outbox, those Redis lost. */
@Processor(QUEUES.domainEvents)
export class DomainEventsProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly handlers: JobHandlers<'domainEvents', { deliveries: number }> = {
    [JOBS.domainEvents.announce]: async (job) => ({ deliveries: await this.fanOut.announce(job.data) }),
  };

  constructor(
    private readonly fanOut: FanOutService,
    private readonly domainEvents: DomainEventsService,
    private readonly background: BackgroundWork,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.background.repeat('queue again the domain events Redis lost', () => this.domainEvents.resumeStranded());
  }

  process(job: Job): Promise<{ deliveries: number }> {
    return dispatchJob('domainEvents', this.handlers, job);
  }
}
