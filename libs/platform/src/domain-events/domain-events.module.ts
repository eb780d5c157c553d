import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { DomainEventOutboxPersonalDataService } from '../privacy/domain-event-outbox-personal-data.service';
import { QUEUES } from '../queue/queue-contract';
import { DomainEventsService } from './domain-events.service';

/** Import to publish domain events (and to take them out of the outbox: the webhooks lib's processor consumes them). */
@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.domainEvents })],
  providers: [DomainEventsService, DomainEventOutboxPersonalDataService],
  exports: [DomainEventsService],
})
export class DomainEventsModule {}
