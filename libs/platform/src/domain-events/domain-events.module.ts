import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QUEUES } from '../queue/queue-contract';
import { DomainEventsService } from './domain-events.service';

/** Import to publish domain events; the webhooks lib's processor consumes them. */
@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.domainEvents })],
  providers: [DomainEventsService],
  exports: [DomainEventsService],
})
export class DomainEventsModule {}
