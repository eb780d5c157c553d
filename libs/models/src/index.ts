export { ModelsModule } from './models.module';
export { Model, type ModelStatus, type ModelAlgorithm } from './registry/model.entity';
export { ModelVersion, type VersionState } from './registry/model-version.entity';
export { createModelSchema, retrainSchema, updateModelSchema, type CreateModel, type UpdateModel } from './registry/model.schema';
export { ModelsService, type ModelWithVersion, type RetrainStarted, type ServingVersionRef, type VersionArtifact } from './registry/models.service';
export { ModelsProcessorsModule } from './models-processors.module';
export { planTraining, isValidationUser, ACTIVE_DAYS, type TrainingPlan } from './dataset/training-plan';
export { rocAuc, confidenceHistogram, populationStabilityIndex, CONFIDENCE_BIN_EDGES, ONNX_INPUT, ONNX_PROBABILITIES_OUTPUT, type ConfidenceHistogram } from './training';
export { RELIABILITY_BINS, SCORE_HISTOGRAM_BINS, THRESHOLD_STEPS, type ValidationCurves } from './curves/validation-curves';
