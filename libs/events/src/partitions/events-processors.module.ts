import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QUEUES } from '@foresight/platform';
import { EventPayloadCipher } from '../encryption/event-payload-cipher';
import { EventReencryption } from '../encryption/event-reencryption';
import { EventsMaintenanceProcessor } from './events-maintenance.processor';

/** The events lib's background work, composed into the worker (or the API with WORKER_MODE=inline). */
@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.events })],
  providers: [EventPayloadCipher, EventReencryption, EventsMaintenanceProcessor],
})
export class EventsProcessorsModule {}
