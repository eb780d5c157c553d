export { RELIABILITY_BINS, SCORE_HISTOGRAM_BINS, THRESHOLD_STEPS, type ValidationCurves, validationCurves } from './curves/validation-curves';
export { type BuiltDataset, DatasetBuilderService } from './dataset/dataset-builder.service';
export { isValidationUser, planTraining, type TrainingPlan } from './dataset/training-plan';
export { ModelsModule } from './models.module';
export { ModelsProcessorsModule } from './models-processors.module';
export { Model, type ModelAlgorithm, type ModelStatus } from './registry/model.entity';
export { type CreateModel, createModelSchema, retrainSchema, type UpdateModel, updateModelSchema } from './registry/model.schema';
export { ModelVersion, type VersionState } from './registry/model-version.entity';
export { ModelsService, type ModelWithVersion, type RetrainStarted, type ServingVersionRef, type VersionArtifact } from './registry/models.service';
export {
  CONFIDENCE_BIN_EDGES,
  type ConfidenceHistogram,
  confidenceHistogram,
  type ExplainableModel,
  explainableModelOf,
  explainRow,
  type Explanation,
  ONNX_INPUT, ONNX_PROBABILITIES_OUTPUT, populationStabilityIndex, rocAuc, type TrainingSet, type TrainingSplit, trainModel } from './training';
