import { resolvePositiveWeight } from '../class-weight';
import { marginLogLoss } from '../log-loss';
import type { LogisticParameters } from '../logistic.trainer';
import { rowCount, TrainingSplit, tuningSet } from '../training-set';
import { type BinnedSplit, binnedSplit } from './binned-split';
import { GbdtOptions, resolveGbdtOptions } from './gbdt-options';
import { GossSampler } from './goss-sampler';
import { fitLinearBase } from './linear-base';
import { type GbdtParameters, predictGbdtMargins, type RegressionTree } from './regression-tree';
import { addLeafValues, TreeGrower } from './tree-grower';

/** Floor on per-row hessian so confident rows cannot make a leaf's denominator vanish. */
const MIN_ROW_HESSIAN = 1e-16;

export interface GbdtFit {
  parameters: GbdtParameters;
  /** Total split gain per feature over the kept trees (unnormalized). */
  featureGain: Float64Array;
  treesTrained: number;
  /** Rounds kept: the round with the best tuning loss, or every round without tuning rows. */
  bestIteration: number;
  /** Class-weighted log loss on the tuning rows at bestIteration (the objective being early-stopped); Infinity without tuning rows. */
  bestTuningLoss: number;
  /** The training and tuning rows as this fit binned them (a refit on both reuses them: refitBinning). */
  binned: BinnedSplit;
}

/**
 * What the boosting loop minimises: the margin before any tree, each training row's gradient and
 * hessian at its current score, and the loss early stopping watches on the tuning rows.
 */
interface Objective {
  baseScore: number;
  /** A linear model whose margins every row starts from, before baseScore and the trees. */
  linear?: LogisticParameters;
  gradients(scores: Float64Array, grad: Float64Array, hess: Float64Array): void;
  tuningLoss(tuningScores: Float64Array): number;
}

/** Binary log loss with the positive class weighted: the classifier every model kind serves. */
/** `binned`: the split's rows binned already (refitBinning); binned here otherwise. */
export function fitGbdt(split: TrainingSplit, options: Partial<GbdtOptions> = {}, binned?: BinnedSplit): GbdtFit {
  const opts = resolveGbdtOptions(options);
  const { train } = split;
  const tuning = tuningSet(split);
  const positiveWeight = resolvePositiveWeight(train.labels, opts.positiveWeight);
  // Start from the weighted log-odds, or from a linear fit's margins (its intercept centres them), so the
  // first tree already sees centred gradients.
  let weightedPositives = 0;
  let negatives = 0;
  for (let i = 0; i < train.labels.length; i++) {
    if (train.labels[i] === 1) weightedPositives += positiveWeight;
    else negatives++;
  }
  const linear = opts.linearBase ? fitLinearBase(train, opts.linearBase, positiveWeight) : undefined;
  return boost(split, opts, binned, {
    baseScore: linear ? 0 : Math.fround(Math.log(weightedPositives / negatives)),
    ...(linear && { linear }),
    gradients(scores, grad, hess) {
      for (let i = 0; i < scores.length; i++) {
        const y = train.labels[i];
        const w = y === 1 ? positiveWeight : 1;
        const p = 1 / (1 + Math.exp(-scores[i]));
        grad[i] = w * (p - y);
        hess[i] = Math.max(w * p * (1 - p), MIN_ROW_HESSIAN);
      }
    },
    tuningLoss(tuningScores) {
      let lossSum = 0;
      let weightSum = 0;
      for (let i = 0; i < tuningScores.length; i++) {
        const y = tuning.labels[i];
        const w = y === 1 ? positiveWeight : 1;
        lossSum += w * marginLogLoss(tuningScores[i], y);
        weightSum += w;
      }
      return lossSum / weightSum;
    },
  });
}

/**
 * Squared error on `targets` (one per row of each set, e.g. log1p of an amount): the regression a
 * `value` model serves beside its classifier. Labels are not read; `positiveWeight` and `linearBase` are ignored.
 */
export function fitGbdtRegression(split: TrainingSplit, targets: { train: Float32Array; tuning: Float32Array }, options: Partial<GbdtOptions> = {}): GbdtFit {
  const opts = resolveGbdtOptions(options);
  let sum = 0;
  for (const y of targets.train) sum += y;
  return boost(split, opts, undefined, {
    baseScore: Math.fround(targets.train.length > 0 ? sum / targets.train.length : 0),
    gradients(scores, grad, hess) {
      for (let i = 0; i < scores.length; i++) {
        grad[i] = scores[i] - targets.train[i];
        hess[i] = 1;
      }
    },
    tuningLoss(tuningScores) {
      let loss = 0;
      for (let i = 0; i < tuningScores.length; i++) loss += (tuningScores[i] - targets.tuning[i]) ** 2;
      return loss / tuningScores.length;
    },
  });
}

function boost(split: TrainingSplit, opts: GbdtOptions, given: BinnedSplit | undefined, objective: Objective): GbdtFit {
  const { train } = split;
  // Early stopping chooses the number of trees: on the tuning rows, never on those that calibrate and measure.
  const tuning = tuningSet(split);
  const d = train.featureNames.length;
  const n = rowCount(train);
  const nt = rowCount(tuning);

  const binned = given ?? binnedSplit(train, tuning, opts.maxBins);
  const { thresholds, trainBins, tuningBins } = binned;
  const grower = new TreeGrower(trainBins, n, thresholds, opts);
  const sampler = n >= opts.gossMinRows ? new GossSampler(n, opts) : null;
  // Early gradients are nearly uniform, so sampling by their size would only add noise.
  const gossWarmup = Math.ceil(1 / opts.learningRate);
  const allRows = Int32Array.from({ length: n }, (_, i) => i);
  const { baseScore, linear } = objective;

  const startScores = (set: TrainingSplit['train'], rows: number) =>
    linear ? predictGbdtMargins({ kind: 'gbdt', baseScore, trees: [], linear }, set.features, d) : new Float64Array(rows).fill(baseScore);
  const scores = startScores(train, n);
  const tuningScores = startScores(tuning, nt);
  const grad = new Float64Array(n);
  const hess = new Float64Array(n);
  const trees: RegressionTree[] = [];
  const gains: Float64Array[] = [];
  let bestLoss = Infinity;
  let bestIteration = 0;

  for (let t = 0; t < opts.maxTrees; t++) {
    objective.gradients(scores, grad, hess);
    const rows = sampler !== null && t >= gossWarmup ? sampler.sample(grad, hess) : allRows;
    const grown = grower.grow(grad, hess, rows);
    trees.push(grown.tree);
    gains.push(grown.gainByFeature);

    // Every row, sampled or not, moves by its leaf. Walking bin ids is exact because
    // `x <= threshold` holds precisely when bin(x) <= the split's bin.
    addLeafValues(grown.binned, trainBins, scores);
    addLeafValues(grown.binned, tuningBins, tuningScores);
    // A refit for a number of rounds chosen earlier has no tuning rows: it keeps every round.
    if (nt === 0) {
      bestIteration = t + 1;
      continue;
    }
    const loss = objective.tuningLoss(tuningScores);
    if (loss < bestLoss) {
      bestLoss = loss;
      bestIteration = t + 1;
    } else if (t + 1 - bestIteration >= opts.earlyStoppingPatience) {
      break;
    }
  }

  const featureGain = new Float64Array(d);
  for (let t = 0; t < bestIteration; t++) {
    for (let f = 0; f < d; f++) featureGain[f] += gains[t][f];
  }
  return {
    parameters: { kind: 'gbdt', baseScore, trees: trees.slice(0, bestIteration), ...(linear && { linear }) },
    featureGain,
    treesTrained: trees.length,
    bestIteration,
    bestTuningLoss: bestLoss,
    binned,
  };
}

