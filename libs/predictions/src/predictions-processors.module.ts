import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { ModelsModule } from '@foresight/models';
import { DomainEventsModule, QUEUES } from '@foresight/platform';
import { PredictionsProcessor } from './jobs/predictions.processor';
import { UserActivityProcessor } from './jobs/user-activity.processor';
import { MonitoringRunModule } from './monitoring/monitoring-run.module';
import { PredictionsModule } from './predictions.module';

/** The predictions lib's background work (partitions, monitoring, re-scoring active users), composed into the worker (or the API with WORKER_MODE=inline). */
@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.predictions }, { name: QUEUES.userActivity }), ModelsModule, DomainEventsModule, MonitoringRunModule, PredictionsModule],
  providers: [PredictionsProcessor, UserActivityProcessor],
})
export class PredictionsProcessorsModule {}
