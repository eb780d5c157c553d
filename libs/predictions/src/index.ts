export { PredictionsModule } from './predictions.module';
export { PredictionsProcessorsModule } from './predictions-processors.module';
export { PredictionService } from './serving/prediction.service';
export type { Prediction, PredictionSubject, UserPredictions } from './serving/prediction';
export { PredictionExport, type ExportFilter, type SerializedBatch } from './export/prediction-export';
export { decodeCursor, encodeCursor, type ExportPosition } from './export/export-cursor';
export { ModelMonitoring, type MonitoringFigures, type MonitoringPoint } from './monitoring/model-monitoring.service';
