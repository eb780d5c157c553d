import { type LogisticParameters, predictLogisticMargins } from '../logistic.trainer';

/**
 * Node arrays of one tree; node 0 is the root. Numbers are float32 values so that
 * ONNX (which stores and compares float) reproduces every decision exactly.
 */
export interface RegressionTree {
  /** Feature index of a split node; -1 marks a leaf. */
  feature: number[];
  /** A row goes left when `x[feature] <= threshold`; 0 for leaves. */
  threshold: number[];
  left: number[];
  right: number[];
  /** Contribution of a leaf to the margin (log-odds); 0 for split nodes. */
  value: number[];
  /**
   * Training hessian that reached each node (XGBoost's "cover"): how TreeSHAP weighs the two sides of a
   * split whose feature it leaves out.
   */
  cover: number[];
}

export interface GbdtParameters {
  kind: 'gbdt';
  /** Margin before any tree, float32. */
  baseScore: number;
  trees: RegressionTree[];
  /** The linear margin the trees were boosted from (GbdtOptions.linearBase), added to theirs; absent: a constant base. */
  linear?: LogisticParameters;
}


/** The leaf a row reaches. A missing value (NaN) fails every `<=` and goes right, as in ONNX Runtime's BRANCH_LEQ. */
export function leafOf(tree: RegressionTree, features: ArrayLike<number>, rowOffset = 0): number {
  let node = 0;
  while (tree.feature[node] >= 0) {
    node = features[rowOffset + tree.feature[node]] <= tree.threshold[node] ? tree.left[node] : tree.right[node];
  }
  return node;
}

/**
 * Margins (log-odds) as ONNX Runtime computes them: leaf values summed in float32,
 * tree by tree, then the base score added, then the linear margin if any (one float32 Add).
 */
export function predictGbdtMargins(parameters: GbdtParameters, features: Float32Array, d: number): Float64Array {
  const n = features.length / d;
  const margins = new Float64Array(n);
  const linear = parameters.linear ? predictLogisticMargins(parameters.linear, features, d) : undefined;
  for (let i = 0; i < n; i++) {
    let sum = 0;
    for (const tree of parameters.trees) sum = Math.fround(sum + tree.value[leafOf(tree, features, i * d)]);
    margins[i] = Math.fround(sum + parameters.baseScore);
    if (linear) margins[i] = Math.fround(margins[i] + Math.fround(linear[i]));
  }
  return margins;
}

