import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QUEUES } from '../queue/queue-contract';
import { DomainEvents } from './domain-events';

/** Import to publish domain events; the webhooks lib's processor consumes them. */
@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.domainEvents })],
  providers: [DomainEvents],
  exports: [DomainEvents],
})
export class DomainEventsModule {}
