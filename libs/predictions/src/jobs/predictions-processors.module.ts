import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { ModelsModule } from '@foresight/models';
import { DomainEventsModule, MonthlyPartitions, QUEUES } from '@foresight/platform';
import { MonitoringQueries } from '../monitoring/monitoring-queries';
import { MonitoringRun } from '../monitoring/monitoring-run';
import { PredictionsProcessor } from './predictions.processor';

/** The predictions lib's background work (partitions, monitoring), composed into the worker (or the API with WORKER_MODE=inline). */
@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.predictions }), ModelsModule, DomainEventsModule],
  providers: [MonthlyPartitions, MonitoringQueries, MonitoringRun, PredictionsProcessor],
})
export class PredictionsProcessorsModule {}
