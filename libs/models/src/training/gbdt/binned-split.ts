import { rowCount, type TrainingSet, type TrainingSplit, tuningSet } from '../training-set';
import { appendRows, type BinnedRows, binRows, computeBinThresholds } from './binning';

export interface BinnedSplit {
  thresholds: Float32Array[];
  trainBins: BinnedRows;
  tuningBins: BinnedRows;
}

/** The last binning of each training matrix: the search's candidates share one instead of each binning again. */
const lastBinning = new WeakMap<Float32Array, BinnedSplit & { maxBins: number; tuning: Float32Array }>();

/** Bin thresholds from the training rows, and both sets' rows as bin ids (computed once per matrix and maxBins). */
export function binnedSplit(train: TrainingSet, tuning: TrainingSet, maxBins: number): BinnedSplit {
  const cached = lastBinning.get(train.features);
  if (cached && cached.maxBins === maxBins && cached.tuning === tuning.features) return cached;
  const d = train.featureNames.length;
  const thresholds = computeBinThresholds(train.features, rowCount(train), d, maxBins);
  const binned = {
    thresholds,
    trainBins: binRows(train.features, rowCount(train), d, thresholds),
    tuningBins: binRows(tuning.features, rowCount(tuning), d, thresholds),
  };
  lastBinning.set(train.features, { ...binned, maxBins, tuning: tuning.features });
  return binned;
}

/**
 * A refit's rows (refitSplit of the searched split: its training rows, then its tuning rows) binned as
 * the search binned them, with the same thresholds: the training rows' bins are appended, not binned again.
 */
export function refitBinning(searched: BinnedSplit, refit: TrainingSplit): BinnedSplit {
  const tuning = tuningSet(refit);
  return {
    thresholds: searched.thresholds,
    trainBins: appendRows(searched.trainBins, searched.tuningBins),
    tuningBins: binRows(tuning.features, rowCount(tuning), searched.thresholds.length, searched.thresholds),
  };
}
