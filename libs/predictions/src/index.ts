export { PredictionsModule } from './predictions.module';
export { PredictionsProcessorsModule } from './predictions-processors.module';
export { PredictionService } from './serving/prediction.service';
export type { Prediction, PredictionSubject, UserPredictions } from './serving/prediction';
export { PredictionExportService, type ExportFilter, type SerializedBatch } from './export/prediction-export.service';
export { decodeCursor, encodeCursor, type ExportPosition } from './export/export-cursor';
export { ModelMonitoringService, type MonitoringFigures, type MonitoringPoint } from './monitoring/model-monitoring.service';
