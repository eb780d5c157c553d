import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { EventsModule } from '@foresight/events';
import { DomainEventsModule, QUEUES } from '@foresight/platform';
import { ModelsModule } from './models.module';
import { TrainingProcessor } from './training-run/training.processor';
import { TrainingRunService } from './training-run/training-run.service';

/** The models lib's background work (training runs) over ModelsModule's services, composed into the worker. */
@Module({
  imports: [ModelsModule, EventsModule, DomainEventsModule, BullModule.registerQueue({ name: QUEUES.training })],
  providers: [TrainingRunService, TrainingProcessor],
})
export class ModelsProcessorsModule {}
