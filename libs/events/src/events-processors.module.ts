import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QUEUES } from '@foresight/platform';
import { EventReencryptionService } from './encryption/event-reencryption.service';
import { EventsModule } from './events.module';
import { EventsMaintenanceProcessor } from './partitions/events-maintenance.processor';

/** The events lib's background work over EventsModule's services, composed into the worker (or the API with WORKER_MODE=inline). */
@Module({
  imports: [EventsModule, BullModule.registerQueue({ name: QUEUES.events })],
  providers: [EventReencryptionService, EventsMaintenanceProcessor],
})
export class EventsProcessorsModule {}
