import { InvalidTrainingSetError } from './training.errors';

/**
 * One part of a data set. Plain object of typed arrays so it crosses a worker-thread
 * boundary by structured clone (or transfer) without conversion.
 */
export interface TrainingSet {
  /** Row-major: row i, feature j is `features[i * featureNames.length + j]`. */
  features: Float32Array;
  /** 1 when the user performed the target event within the horizon, else 0. */
  labels: Uint8Array;
  featureNames: string[];
  /** A `value` model's rows: the sum of the property over the horizon (the label is whether it is above 0). */
  amounts?: Float32Array;
}

/**
 * The caller splits by time (train = older; tuning and validation = newer); training never reshuffles.
 * `tuning` is what early stopping and the hyperparameter search choose on; `validation` only
 * calibrates the chosen model and measures it, so its metrics are not flattered by the choice.
 * Without `tuning` (small fixtures), validation serves both.
 */
export interface TrainingSplit {
  train: TrainingSet;
  tuning?: TrainingSet;
  validation: TrainingSet;
}

/** The rows choices are made on: `tuning`, or `validation` when the split has none. */
export function tuningSet(split: TrainingSplit): TrainingSet {
  return split.tuning ?? split.validation;
}

/**
 * What the served model is fitted on once settings are chosen: the training rows and the tuning rows
 * together (the newest cutoffs included), with no tuning rows left, so a fit keeps the rounds it is
 * given. Validation rows stay unseen: they calibrate and measure it. Null when the split has no
 * tuning part (validation served as tuning, so nothing is left to add).
 */
export function refitSplit(split: TrainingSplit): TrainingSplit | null {
  const { train, tuning, validation } = split;
  if (!tuning) return null;
  const features = new Float32Array(train.features.length + tuning.features.length);
  features.set(train.features);
  features.set(tuning.features, train.features.length);
  const labels = new Uint8Array(train.labels.length + tuning.labels.length);
  labels.set(train.labels);
  labels.set(tuning.labels, train.labels.length);
  const { featureNames } = train;
  const merged: TrainingSet = { features, labels, featureNames };
  if (train.amounts && tuning.amounts) {
    merged.amounts = new Float32Array(train.amounts.length + tuning.amounts.length);
    merged.amounts.set(train.amounts);
    merged.amounts.set(tuning.amounts, train.amounts.length);
  }
  return {
    train: merged,
    tuning: { features: new Float32Array(0), labels: new Uint8Array(0), featureNames },
    validation,
  };
}

export interface ClassCounts {
  positives: number;
  negatives: number;
}

export function rowCount(set: TrainingSet): number {
  return set.labels.length;
}

export function countClasses(labels: Uint8Array): ClassCounts {
  let positives = 0;
  for (let i = 0; i < labels.length; i++) positives += labels[i];
  return { positives, negatives: labels.length - positives };
}

/** Builds a set from per-row arrays; values are rounded to float32 as ONNX will see them. */
export function trainingSetFromRows(
  featureNames: string[],
  rows: ArrayLike<number>[],
  labels: ArrayLike<number>,
): TrainingSet {
  const d = featureNames.length;
  if (rows.length !== labels.length) {
    throw new InvalidTrainingSetError(`${rows.length} rows but ${labels.length} labels`);
  }
  const features = new Float32Array(rows.length * d);
  rows.forEach((row, i) => {
    if (row.length !== d) {
      throw new InvalidTrainingSetError(`row ${i} has ${row.length} values; expected ${d}`);
    }
    for (let j = 0; j < d; j++) features[i * d + j] = row[j];
  });
  const set: TrainingSet = { features, labels: Uint8Array.from(labels), featureNames: [...featureNames] };
  assertTrainingSet(set, 'rows');
  return set;
}

/** Rejects inconsistent shapes, non-binary labels and non-finite features before any maths runs. */
export function assertTrainingSplit(split: TrainingSplit): void {
  assertTrainingSet(split.train, 'train');
  assertTrainingSet(split.validation, 'validation');
  if (split.tuning) assertTrainingSet(split.tuning, 'tuning');
  const a = split.train.featureNames;
  for (const other of [split.validation, split.tuning]) {
    const b = other?.featureNames ?? a;
    if (a.length !== b.length || a.some((name, j) => name !== b[j])) {
      throw new InvalidTrainingSetError('train, tuning and validation must have the same feature names in the same order');
    }
  }
}

function assertTrainingSet(set: TrainingSet, part: string): void {
  const d = set.featureNames.length;
  const n = set.labels.length;
  if (d === 0) throw new InvalidTrainingSetError(`${part}: no features`);
  if (new Set(set.featureNames).size !== d) {
    throw new InvalidTrainingSetError(`${part}: feature names must be distinct`);
  }
  if (set.features.length !== n * d) {
    throw new InvalidTrainingSetError(
      `${part}: ${set.features.length} feature values do not fill ${n} rows of ${d} features`,
    );
  }
  for (let i = 0; i < n; i++) {
    if (set.labels[i] > 1) throw new InvalidTrainingSetError(`${part}: label of row ${i} is ${set.labels[i]}; expected 0 or 1`);
  }
  // NaN and infinities would silently poison standardization and gradient sums.
  for (let k = 0; k < set.features.length; k++) {
    if (!Number.isFinite(set.features[k])) {
      const row = Math.floor(k / d);
      throw new InvalidTrainingSetError(`${part}: feature "${set.featureNames[k - row * d]}" of row ${row} is not finite`);
    }
  }
}
