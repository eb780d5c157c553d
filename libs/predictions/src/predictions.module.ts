import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '@foresight/events';
import { ModelsModule } from '@foresight/models';
import { DomainEventsModule, QUEUES } from '@foresight/platform';
import { Audience } from './audiences/audience.entity';
import { AudienceMembersService } from './audiences/audience-members.service';
import { AudienceMembersPersonalDataService } from './audiences/audience-members-personal-data.service';
import { AudiencesService } from './audiences/audiences.service';
import { PredictionExportService } from './export/prediction-export.service';
import { PredictionLogService } from './log/prediction-log.service';
import { ModelMonitoringService } from './monitoring/model-monitoring.service';
import { MonitoringQueriesService } from './monitoring/monitoring-queries.service';
import { PredictionsPersonalDataService } from './privacy/predictions-personal-data.service';
import { ScoringCheckpointsPersonalDataService } from './privacy/scoring-checkpoints-personal-data.service';
import { ScoringRunsService } from './scoring/scoring-runs.service';
import { PredictionService } from './serving/prediction.service';
import { PredictionCacheService } from './serving/prediction-cache.service';
import { PredictionMetricsService } from './serving/prediction-metrics.service';
import { ServingModelsService } from './serving/serving-models.service';

/** Serving (ONNX Runtime sessions per serving version), the prediction log, its export, monitoring figures and audiences: the API side. */
@Module({
  imports: [EventsModule, ModelsModule, DomainEventsModule, TypeOrmModule.forFeature([Audience]), BullModule.registerQueue({ name: QUEUES.scoring }, { name: QUEUES.predictions })],
  providers: [PredictionService, ServingModelsService, PredictionCacheService, PredictionLogService, PredictionExportService, PredictionsPersonalDataService, ScoringCheckpointsPersonalDataService, PredictionMetricsService, MonitoringQueriesService, ModelMonitoringService, ScoringRunsService, AudiencesService, AudienceMembersService, AudienceMembersPersonalDataService],
  exports: [PredictionService, ScoringRunsService, ServingModelsService, PredictionExportService, ModelMonitoringService, MonitoringQueriesService, AudiencesService, AudienceMembersService],
})
export class PredictionsModule {}
