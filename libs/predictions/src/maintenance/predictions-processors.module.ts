import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { MonthlyPartitions, QUEUES } from '@foresight/platform';
import { PredictionsMaintenanceProcessor } from './predictions-maintenance.processor';

/** The predictions lib's background work, composed into the worker (or the API with WORKER_MODE=inline). */
@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.predictions })],
  providers: [MonthlyPartitions, PredictionsMaintenanceProcessor],
})
export class PredictionsProcessorsModule {}
