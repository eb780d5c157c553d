import { Module } from '@nestjs/common';
import { EventsModule } from '@foresight/events';
import { ModelsModule } from '@foresight/models';
import { PredictionExport } from './export/prediction-export';
import { PredictionLog } from './log/prediction-log';
import { ModelMonitoring } from './monitoring/model-monitoring.service';
import { MonitoringQueries } from './monitoring/monitoring-queries';
import { PredictionsPersonalData } from './privacy/predictions-personal-data';
import { PredictionCache } from './serving/prediction-cache';
import { PredictionMetrics } from './serving/prediction-metrics';
import { PredictionService } from './serving/prediction.service';
import { ServingModels } from './serving/serving-models';

/** Serving (ONNX Runtime sessions per serving version), the prediction log, its export and monitoring figures: the API side. */
@Module({
  imports: [EventsModule, ModelsModule],
  providers: [PredictionService, ServingModels, PredictionCache, PredictionLog, PredictionExport, PredictionsPersonalData, PredictionMetrics, MonitoringQueries, ModelMonitoring],
  exports: [PredictionService, PredictionExport, ModelMonitoring, MonitoringQueries],
})
export class PredictionsModule {}
