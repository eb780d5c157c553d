export { RELIABILITY_BINS, SCORE_HISTOGRAM_BINS, THRESHOLD_STEPS, type ValidationCurves, validationCurves } from './curves/validation-curves';
export { type BuiltDataset, DatasetBuilder } from './dataset/dataset-builder';
export { isValidationUser, planTraining, type TrainingPlan } from './dataset/training-plan';
export { DAYS_SINCE_LAST_EVENT, inPopulation, outcomeAfter, type PredictionTarget, predictionTargetOf, predictionText } from './dataset/training-target';
export { ModelsModule } from './models.module';
export { ModelsProcessorsModule } from './models-processors.module';
export { Model, type ModelAlgorithm, type ModelKind, type ModelStatus } from './registry/model.entity';
export { type CreateModel, createModelSchema, DEFAULT_ACTIVE_DAYS, DEFAULT_LABELS, retrainSchema, type UpdateModel, updateModelSchema } from './registry/model.schema';
export { ModelVersion, type VersionState } from './registry/model-version.entity';
export { ModelsService, type ModelWithVersion, type RetrainStarted, type ServingVersionRef, type VersionArtifact } from './registry/models.service';
export type { VersionTarget } from './registry/version-target';
export {
  CONFIDENCE_BIN_EDGES,
  type ConfidenceHistogram,
  confidenceHistogram,
  estimateValue,
  type ExplainableModel,
  explainableModelOf,
  explainRow,
  type Explanation,
  ONNX_AMOUNT_OUTPUT,
  ONNX_INPUT,
  ONNX_PROBABILITIES_OUTPUT,
  populationStabilityIndex,
  rocAuc,
  type TrainingSet,
  type TrainingSplit,
  trainModel,
  type ValueEstimate,
  type ValueMetrics,
} from './training';
