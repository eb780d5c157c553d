export { decodeCursor, encodeCursor, type ExportPosition } from './export/export-cursor';
export { type ExportFilter, PredictionExportService, type SerializedBatch } from './export/prediction-export.service';
export { ModelMonitoringService, type MonitoringFigures, type MonitoringPoint } from './monitoring/model-monitoring.service';
export { MonitoringRunModule } from './monitoring/monitoring-run.module';
export { MonitoringRunService } from './monitoring/monitoring-run.service';
export { PredictionsModule } from './predictions.module';
export { PredictionsProcessorsModule } from './predictions-processors.module';
export type { Prediction, PredictionSubject, UserPredictions } from './serving/prediction';
export { PredictionService } from './serving/prediction.service';
