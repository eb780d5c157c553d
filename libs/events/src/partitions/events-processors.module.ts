import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QUEUES } from '@foresight/platform';
import { EventPartitionsService } from './event-partitions.service';
import { EventsMaintenanceProcessor } from './events-maintenance.processor';

/** The events lib's background work, composed into the worker (or the API with WORKER_MODE=inline). */
@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.events })],
  providers: [EventPartitionsService, EventsMaintenanceProcessor],
})
export class EventsProcessorsModule {}
