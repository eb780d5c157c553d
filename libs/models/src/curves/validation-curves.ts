/**
 * The curves a version's charts need, computed once at training time on its validation set from the
 * labels and the calibrated P(positive) of each row: reliability (calibration) bins, the score
 * histogram split by actual outcome, and precision / recall / share flagged at each cutoff with the
 * confusion matrix there. Fed with (labels, scores) only, so it does not depend on any trainer.
 */

export const RELIABILITY_BINS = 10;
export const SCORE_HISTOGRAM_BINS = 20;
/** Cutoffs 0, 0.02, …, 1: fine enough for a slider, small enough to store with every version. */
export const THRESHOLD_STEPS = 50;

export interface ReliabilityBin {
  /** The bin covers scores in [lower, upper); the last one includes 1. */
  lower: number;
  upper: number;
  rows: number;
  /** Mean predicted probability of its rows; null for an empty bin. */
  meanPredicted: number | null;
  /** Share of its rows that were actually positive; null for an empty bin. */
  observedRate: number | null;
}

export interface ScoreHistogram {
  /** SCORE_HISTOGRAM_BINS + 1 edges from 0 to 1. */
  binEdges: number[];
  positives: number[];
  negatives: number[];
}

/** A row is flagged (predicted positive) when its score is above the threshold, as the ONNX label is. */
export interface ThresholdPoint {
  threshold: number;
  /** null when nothing is flagged. */
  precision: number | null;
  recall: number;
  flaggedShare: number;
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  trueNegatives: number;
}

export interface ValidationCurves {
  reliability: ReliabilityBin[];
  scoreHistogram: ScoreHistogram;
  thresholds: ThresholdPoint[];
}

export function validationCurves(labels: ArrayLike<number>, scores: ArrayLike<number>): ValidationCurves {
  if (labels.length !== scores.length) throw new RangeError(`${labels.length} labels but ${scores.length} scores`);
  return { reliability: reliabilityBins(labels, scores), scoreHistogram: scoreHistogram(labels, scores), thresholds: thresholdPoints(labels, scores) };
}

const binOf = (score: number, bins: number) => Math.min(bins - 1, Math.max(0, Math.floor(score * bins)));
const edges = (bins: number) => Array.from({ length: bins + 1 }, (_, k) => k / bins);

function reliabilityBins(labels: ArrayLike<number>, scores: ArrayLike<number>): ReliabilityBin[] {
  const rows = new Array<number>(RELIABILITY_BINS).fill(0);
  const scoreSums = new Array<number>(RELIABILITY_BINS).fill(0);
  const positives = new Array<number>(RELIABILITY_BINS).fill(0);
  for (let i = 0; i < scores.length; i++) {
    const bin = binOf(scores[i], RELIABILITY_BINS);
    rows[bin]++;
    scoreSums[bin] += scores[i];
    positives[bin] += labels[i] === 1 ? 1 : 0;
  }
  const binEdges = edges(RELIABILITY_BINS);
  return rows.map((count, bin) => ({
    lower: binEdges[bin],
    upper: binEdges[bin + 1],
    rows: count,
    meanPredicted: count > 0 ? scoreSums[bin] / count : null,
    observedRate: count > 0 ? positives[bin] / count : null,
  }));
}

function scoreHistogram(labels: ArrayLike<number>, scores: ArrayLike<number>): ScoreHistogram {
  const positives = new Array<number>(SCORE_HISTOGRAM_BINS).fill(0);
  const negatives = new Array<number>(SCORE_HISTOGRAM_BINS).fill(0);
  for (let i = 0; i < scores.length; i++) (labels[i] === 1 ? positives : negatives)[binOf(scores[i], SCORE_HISTOGRAM_BINS)]++;
  return { binEdges: edges(SCORE_HISTOGRAM_BINS), positives, negatives };
}

function thresholdPoints(labels: ArrayLike<number>, scores: ArrayLike<number>): ThresholdPoint[] {
  const totalPositives = Array.from(labels).filter((label) => label === 1).length;
  const total = scores.length;
  return edges(THRESHOLD_STEPS).map((threshold) => {
    let truePositives = 0;
    let falsePositives = 0;
    for (let i = 0; i < total; i++) {
      if (scores[i] <= threshold) continue;
      if (labels[i] === 1) truePositives++;
      else falsePositives++;
    }
    const flagged = truePositives + falsePositives;
    return {
      threshold,
      precision: flagged > 0 ? truePositives / flagged : null,
      recall: totalPositives > 0 ? truePositives / totalPositives : 0,
      flaggedShare: total > 0 ? flagged / total : 0,
      truePositives,
      falsePositives,
      falseNegatives: totalPositives - truePositives,
      trueNegatives: total - totalPositives - falsePositives,
    };
  });
}
