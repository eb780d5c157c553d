export type { PlattCalibration } from './calibration';
export { applyCalibration, fitPlattScaling } from './calibration';
export type { PositiveWeight } from './class-weight';
export type { ExplainableModel, Explanation } from './explanation';
export { explainableModelOf, explainRow } from './explanation';
export type { FeatureDirection } from './feature-direction';
export type { FeatureImportance } from './feature-importance';
export type { GbdtFit, GbdtOptions, GbdtParameters, RegressionTree } from './gbdt';
export { DEFAULT_GBDT_OPTIONS, fitGbdt, fitGbdtRegression, predictGbdtMargins } from './gbdt';
export type { LogisticFit, LogisticOptions, LogisticParameters } from './logistic.trainer';
export { DEFAULT_LOGISTIC_OPTIONS, fitLogistic } from './logistic.trainer';
export type { ConfidenceHistogram, ValidationMetrics } from './metrics';
export {
  computeValidationMetrics,
  CONFIDENCE_BIN_EDGES,
  confidenceHistogram,
  DECISION_THRESHOLD,
  populationStabilityIndex,
  rocAuc,
} from './metrics';
export type { Algorithm, ModelParameters } from './model-parameters';
export { predictMargins } from './model-parameters';
export {
  exportOnnx,
  ONNX_ALGORITHM_KEY,
  ONNX_AMOUNT_OUTPUT,
  ONNX_EXPLANATION_KEY,
  ONNX_FEATURE_NAMES_KEY,
  ONNX_INPUT,
  ONNX_LABEL_OUTPUT,
  ONNX_PROBABILITIES_OUTPUT,
} from './onnx-export';
export type { TrainedModel, TrainModelInput } from './train-model';
export { predictProbabilities, trainModel } from './train-model';
export type { SplitPart } from './training.errors';
export {
  InsufficientTrainingDataError,
  InvalidTrainingSetError,
  MIN_TRAINING_EXAMPLES_PER_CLASS,
  MIN_VALIDATION_EXAMPLES_PER_CLASS,
} from './training.errors';
export type { ClassCounts, TrainingSet, TrainingSplit } from './training-set';
export { assertTrainingSplit, countClasses, rowCount, trainingSetFromRows } from './training-set';
export type { AmountModel, AmountSpread, ValueEstimate, ValueMetrics } from './value-model';
export { estimateValue, VALUE_INTERVAL } from './value-model';
