import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { EventsModule } from '@foresight/events';
import { ModelsModule } from '@foresight/models';
import { DomainEventsModule, QUEUES } from '@foresight/platform';
import { PredictionsProcessor } from './jobs/predictions.processor';
import { ScoringProcessor } from './jobs/scoring.processor';
import { UserActivityProcessor } from './jobs/user-activity.processor';
import { MonitoringRunModule } from './monitoring/monitoring-run.module';
import { PredictionsModule } from './predictions.module';
import { BulkScoringService } from './scoring/bulk-scoring.service';

/** The predictions lib's background work (partitions, monitoring, re-scoring active users, bulk scoring), composed into the worker (or the API with WORKER_MODE=inline). */
@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.predictions }, { name: QUEUES.userActivity }, { name: QUEUES.scoring }), EventsModule, ModelsModule, DomainEventsModule, MonitoringRunModule, PredictionsModule],
  providers: [PredictionsProcessor, UserActivityProcessor, BulkScoringService, ScoringProcessor],
})
export class PredictionsProcessorsModule {}
