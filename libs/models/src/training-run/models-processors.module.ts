import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '@foresight/events';
import { DomainEventsModule, QUEUES } from '@foresight/platform';
import { DatasetBuilder } from '../dataset/dataset-builder';
import { Model } from '../registry/model.entity';
import { ModelVersion } from '../registry/model-version.entity';
import { ModelsService } from '../registry/models.service';
import { TrainingProcessor } from './training.processor';
import { TrainingRunService } from './training-run.service';

/** The models lib's background work (training runs), composed into the worker. */
@Module({
  imports: [TypeOrmModule.forFeature([Model, ModelVersion]), BullModule.registerQueue({ name: QUEUES.training }), DomainEventsModule, EventsModule],
  providers: [DatasetBuilder, ModelsService, TrainingRunService, TrainingProcessor],
})
export class ModelsProcessorsModule {}
