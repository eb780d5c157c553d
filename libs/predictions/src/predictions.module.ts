import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { EventsModule } from '@foresight/events';
import { ModelsModule } from '@foresight/models';
import { QUEUES } from '@foresight/platform';
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

/** Serving (ONNX Runtime sessions per serving version), the prediction log, its export and monitoring figures: the API side. */
@Module({
  imports: [EventsModule, ModelsModule, BullModule.registerQueue({ name: QUEUES.scoring })],
  providers: [PredictionService, ServingModelsService, PredictionCacheService, PredictionLogService, PredictionExportService, PredictionsPersonalDataService, ScoringCheckpointsPersonalDataService, PredictionMetricsService, MonitoringQueriesService, ModelMonitoringService, ScoringRunsService],
  exports: [PredictionService, ScoringRunsService, ServingModelsService, PredictionExportService, ModelMonitoringService, MonitoringQueriesService],
})
export class PredictionsModule {}
