import { type ValidationCurves, validationCurves } from '../curves/validation-curves';
import { applyCalibration, fitPlattScaling, PlattCalibration } from './calibration';
import { FeatureDirection, featureDirections, withDirections } from './feature-direction';
import { FeatureImportance, normalizeImportance } from './feature-importance';
import { fitGbdt, GbdtOptions } from './gbdt.trainer';
import { sigmoid } from './log-loss';
import { fitLogistic, LogisticOptions } from './logistic.trainer';
import {
  computeValidationMetrics,
  ConfidenceHistogram,
  confidenceHistogram,
  ValidationMetrics,
} from './metrics';
import { Algorithm, ModelParameters, predictMargins } from './model-parameters';
import { exportOnnx } from './onnx-export';
import {
  InsufficientTrainingDataError,
  MIN_TRAINING_EXAMPLES_PER_CLASS,
  MIN_VALIDATION_EXAMPLES_PER_CLASS,
  SplitPart,
} from './training.errors';
import { assertTrainingSplit, countClasses, rowCount, TrainingSplit } from './training-set';

export type TrainModelInput =
  | { algorithm: 'gbdt'; split: TrainingSplit; options?: Partial<GbdtOptions> }
  | { algorithm: 'logistic'; split: TrainingSplit; options?: Partial<LogisticOptions> };

/** Result of a training run: plain data and typed arrays, safe to post from a worker thread. */
export interface TrainedModel {
  algorithm: Algorithm;
  /** Calibrated model; see onnx-export.ts for inputs and outputs. */
  onnx: Uint8Array;
  featureNames: string[];
  /** Of the calibrated model on the validation set. */
  metrics: ValidationMetrics;
  /** Most important first; weights sum to 1 (all 0 if the model uses no feature); with each feature's direction. */
  featureImportance: Array<FeatureImportance & { direction: FeatureDirection }>;
  /** Validation confidence distribution: the drift baseline for live predictions. */
  confidenceBaseline: ConfidenceHistogram;
  /** Reliability, score histogram by outcome and threshold curves of the validation set, for the dashboard. */
  curves: ValidationCurves;
  /** Calibrated parameters, the same model as `onnx` (used by predictProbabilities). */
  parameters: ModelParameters;
  /** The Platt map already folded into `parameters` and `onnx`; kept for inspection. */
  calibration: PlattCalibration;
  trainRows: number;
  trainPositives: number;
  /** Boosting rounds kept (gbdt) or Newton iterations (logistic). */
  iterations: number;
}

/** Fit on train, calibrate and evaluate on validation, export to ONNX. Pure and synchronous. */
export function trainModel(input: TrainModelInput): TrainedModel {
  const { split } = input;
  assertTrainingSplit(split);
  const train = countClasses(split.train.labels);
  requireExamples('train', train.positives, train.negatives, MIN_TRAINING_EXAMPLES_PER_CLASS);
  const validation = countClasses(split.validation.labels);
  requireExamples('validation', validation.positives, validation.negatives, MIN_VALIDATION_EXAMPLES_PER_CLASS);

  const { featureNames } = split.train;
  const d = featureNames.length;
  let raw: ModelParameters;
  let importance: ArrayLike<number>;
  let iterations: number;
  if (input.algorithm === 'gbdt') {
    const fit = fitGbdt(split, input.options);
    raw = fit.parameters;
    importance = fit.featureGain;
    iterations = fit.bestIteration;
  } else {
    const fit = fitLogistic(split, input.options);
    raw = fit.parameters;
    importance = fit.featureEffect;
    iterations = fit.iterations;
  }

  // Class weights shift and stretch the margins; Platt scaling on held-out rows maps
  // them back to probabilities that match observed frequencies.
  const calibration = fitPlattScaling(predictMargins(raw, split.validation.features, d), split.validation.labels);
  const parameters = applyCalibration(raw, calibration);
  const model = { parameters, featureNames };
  const probabilities = predictProbabilities(model, split.validation.features);

  return {
    algorithm: input.algorithm,
    onnx: exportOnnx(parameters, featureNames),
    featureNames: [...featureNames],
    metrics: computeValidationMetrics(split.validation.labels, probabilities),
    featureImportance: withDirections(normalizeImportance(featureNames, importance), featureNames, featureDirections(parameters, split.validation.features, d)),
    confidenceBaseline: confidenceHistogram(probabilities),
    curves: validationCurves(split.validation.labels, probabilities),
    parameters,
    calibration,
    trainRows: rowCount(split.train),
    trainPositives: train.positives,
    iterations,
  };
}

/**
 * P(positive) per row of a row-major float32 matrix whose columns follow
 * `model.featureNames`; matches the model's ONNX `probabilities[:, 1]` to float precision.
 */
export function predictProbabilities(
  model: Pick<TrainedModel, 'parameters' | 'featureNames'>,
  features: Float32Array,
): Float64Array {
  const d = model.featureNames.length;
  if (features.length % d !== 0) {
    throw new RangeError(`${features.length} feature values do not fill rows of ${d} features`);
  }
  return predictMargins(model.parameters, features, d).map(sigmoid);
}

function requireExamples(part: SplitPart, positives: number, negatives: number, minimum: number): void {
  if (positives < minimum || negatives < minimum) {
    throw new InsufficientTrainingDataError(part, positives, negatives, minimum);
  }
}
