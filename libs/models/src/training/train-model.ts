import { type ValidationCurves, validationCurves } from '../curves/validation-curves';
import { applyCalibration, fitPlattScaling, PlattCalibration } from './calibration';
import { meanAbsoluteContributions } from './explanation';
import { FeatureDirection, featureDirections, withDirections } from './feature-direction';
import { FeatureImportance, normalizeImportance } from './feature-importance';
import { fitGbdt, type GbdtOptions, refitBinning } from './gbdt';
import { predictGbdtMargins } from './gbdt';
import { DEFAULT_SEARCH_BUDGET_CELLS, searchGbdt, searchLogistic } from './hyperparameter-search';
import { sigmoid } from './log-loss';
import { fitLogistic, type LogisticOptions } from './logistic.trainer';
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
import { assertTrainingSplit, countClasses, refitSplit, rowCount, TrainingSplit } from './training-set';
import { type AmountModel, estimateValue, fitAmountModel, valueMetrics } from './value-model';

/**
 * `options` fix hyperparameters; the search tries its candidates merged over them, unless `search`
 * is false (exactly these options, one fit). `searchBudgetCells` bounds the search's work.
 */
interface TrainingControls {
  split: TrainingSplit;
  search?: boolean;
  searchBudgetCells?: number;
}

export type TrainModelInput =
  | ({ algorithm: 'gbdt'; options?: Partial<GbdtOptions> } & TrainingControls)
  | ({ algorithm: 'logistic'; options?: Partial<LogisticOptions> } & TrainingControls);

/** Result of a training run: plain data and typed arrays, sent whole over the training process's IPC channel (V8's serializer). */
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
  /** A `value` model's amount regression (in `onnx` as its `amount` output) and spread; absent for the other kinds. */
  amount?: AmountModel;
  /** Calibrated parameters, the same model as `onnx` (used by predictProbabilities). */
  parameters: ModelParameters;
  /** The Platt map already folded into `parameters` and `onnx` (whose metadata keeps it, to explain raw scores). */
  calibration: PlattCalibration;
  trainRows: number;
  trainPositives: number;
  /** Boosting rounds kept (gbdt) or Newton iterations (logistic). */
  iterations: number;
  /** The hyperparameters chosen on the tuning split, and how many candidates were fitted. */
  hyperparameters: object;
  candidatesTried: number;
}

/** Choose settings on tuning, fit on train and tuning, calibrate and evaluate on validation, export to ONNX. Pure and synchronous. */
export function trainModel(input: TrainModelInput): TrainedModel {
  const { split } = input;
  assertTrainingSplit(split);
  const train = countClasses(split.train.labels);
  requireExamples('train', train.positives, train.negatives, MIN_TRAINING_EXAMPLES_PER_CLASS);
  const validation = countClasses(split.validation.labels);
  requireExamples('validation', validation.positives, validation.negatives, MIN_VALIDATION_EXAMPLES_PER_CLASS);
  if (split.tuning) {
    const tuning = countClasses(split.tuning.labels);
    requireExamples('tuning', tuning.positives, tuning.negatives, MIN_VALIDATION_EXAMPLES_PER_CLASS);
  }

  const { featureNames } = split.train;
  const d = featureNames.length;
  const budgetCells = input.searchBudgetCells ?? DEFAULT_SEARCH_BUDGET_CELLS;
  // Settings are chosen on the tuning rows (the newest cutoffs of the other users); the model that is
  // served is then fitted with them on those rows too, so it learns from the most recent behaviour.
  const refit = refitSplit(split);
  let raw: ModelParameters;
  let importance: ArrayLike<number>;
  let iterations: number;
  let searched: { options: object; candidatesTried: number };
  if (input.algorithm === 'gbdt') {
    const search = searchGbdt(split, input.options ?? {}, budgetCells, input.search !== false);
    // The refit's rows are the search's training and tuning rows: binned already, they are not binned again.
    const fit = refit ? fitGbdt(refit, { ...search.options, maxTrees: search.fit.bestIteration }, refitBinning(search.fit.binned, refit)) : search.fit;
    ({ parameters: raw, featureGain: importance, bestIteration: iterations } = fit);
    // Split gains leave out what a linear base does: its model's importance is what each feature moves the margin by.
    if (raw.kind === 'gbdt' && raw.linear) importance = meanAbsoluteContributions(raw, split.validation.features, d);
    searched = search;
  } else {
    const search = searchLogistic(split, input.options ?? {}, budgetCells, input.search !== false);
    const fit = refit ? fitLogistic(refit, search.options) : search.fit;
    ({ parameters: raw, featureEffect: importance, iterations } = fit);
    searched = search;
  }
  const fitted = refit?.train ?? split.train;
  const fittedClasses = countClasses(fitted.labels);

  // Class weights shift and stretch the margins; Platt scaling on held-out rows maps
  // them back to probabilities that match observed frequencies.
  const calibration = fitPlattScaling(predictMargins(raw, split.validation.features, d), split.validation.labels);
  const parameters = applyCalibration(raw, calibration);
  const model = { parameters, featureNames };
  const probabilities = predictProbabilities(model, split.validation.features);
  const metrics = computeValidationMetrics(split.validation.labels, probabilities);
  // A value model: the classifier above answers "any amount"; an amount model beside it, how much.
  const amount = split.train.amounts ? fitAmountModel(split) : undefined;
  if (amount && split.validation.amounts) {
    const scores = predictGbdtMargins(amount.parameters, split.validation.features, d);
    metrics.value = valueMetrics(
      split.validation.amounts,
      Array.from(probabilities, (p, i) => estimateValue(p, scores[i], amount.spread)),
      probabilities,
    );
  }

  return {
    algorithm: input.algorithm,
    onnx: exportOnnx(parameters, featureNames, calibration, {}, amount?.parameters),
    featureNames: [...featureNames],
    metrics,
    ...(amount && { amount }),
    featureImportance: withDirections(normalizeImportance(featureNames, importance), featureNames, featureDirections(parameters, split.validation.features, d)),
    confidenceBaseline: confidenceHistogram(probabilities),
    curves: validationCurves(split.validation.labels, probabilities),
    parameters,
    calibration,
    trainRows: rowCount(fitted),
    trainPositives: fittedClasses.positives,
    iterations,
    hyperparameters: searched.options,
    candidatesTried: searched.candidatesTried,
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
