import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { QUEUES } from '@foresight/platform';
import { Model } from './registry/model.entity';
import { ModelVersion } from './registry/model-version.entity';
import { ModelsService } from './registry/models.service';

@Module({
  imports: [TypeOrmModule.forFeature([Model, ModelVersion]), BullModule.registerQueue({ name: QUEUES.training }, { name: QUEUES.scoring })],
  providers: [ModelsService],
  // The repositories too: the training run records its outcome on the model.
  exports: [ModelsService, TypeOrmModule],
})
export class ModelsModule {}
