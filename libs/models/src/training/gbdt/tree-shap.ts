import type { RegressionTree } from './regression-tree';

/**
 * The path of features from the root to a node, with Shapley weights per subset size (Lundberg, Erion
 * and Lee 2018, "Consistent individualized feature attribution for tree ensembles", Algorithm 2).
 * Element 0 stands for no feature. `zero`: the share of cover that follows the path when the feature is
 * left out; `one`: 1 when the row itself follows it, else 0.
 */
interface ShapPath {
  feature: number[];
  zero: number[];
  one: number[];
  weight: number[];
}

/** The share of a split's cover that goes to `child`; its two children's shares sum to 1, so attributions add up exactly. */
function coverShare(tree: RegressionTree, node: number, child: number): number {
  return tree.cover[child] / (tree.cover[tree.left[node]] + tree.cover[tree.right[node]]);
}

/** The tree's expected value over its training cover: the prediction when every feature is left out. */
export function expectedTreeValue(tree: RegressionTree, node = 0): number {
  if (tree.feature[node] < 0) return tree.value[node];
  const { left, right } = tree;
  return coverShare(tree, node, left[node]) * expectedTreeValue(tree, left[node]) + coverShare(tree, node, right[node]) * expectedTreeValue(tree, right[node]);
}

/**
 * Adds the exact path-dependent TreeSHAP values of one row to `phi` (one entry per feature): with
 * expectedTreeValue, they sum to the row's leaf value. A split sends the row the way `leafOf` does
 * (a missing value fails `<=` and goes right).
 */
export function addTreeShap(tree: RegressionTree, row: ArrayLike<number>, phi: Float64Array): void {
  recurse(tree, row, phi, 0, { feature: [], zero: [], one: [], weight: [] }, 1, 1, -1);
}

function recurse(tree: RegressionTree, row: ArrayLike<number>, phi: Float64Array, node: number, parent: ShapPath, zero: number, one: number, feature: number): void {
  const path = extend(parent, zero, one, feature);
  const split = tree.feature[node];
  if (split < 0) {
    for (let i = 1; i < path.feature.length; i++) {
      phi[path.feature[i]] += unwoundWeightSum(path, i) * (path.one[i] - path.zero[i]) * tree.value[node];
    }
    return;
  }
  const goesLeft = row[split] <= tree.threshold[node];
  const hot = goesLeft ? tree.left[node] : tree.right[node];
  const cold = goesLeft ? tree.right[node] : tree.left[node];
  // A feature split on again higher up: its earlier fractions carry on, and it counts once on the path.
  let incomingZero = 1;
  let incomingOne = 1;
  let below = path;
  const seen = path.feature.indexOf(split, 1);
  if (seen >= 0) {
    incomingZero = path.zero[seen];
    incomingOne = path.one[seen];
    below = unwind(path, seen);
  }
  recurse(tree, row, phi, hot, below, coverShare(tree, node, hot) * incomingZero, incomingOne, split);
  recurse(tree, row, phi, cold, below, coverShare(tree, node, cold) * incomingZero, 0, split);
}

function extend(parent: ShapPath, zero: number, one: number, feature: number): ShapPath {
  const depth = parent.feature.length;
  const path: ShapPath = {
    feature: [...parent.feature, feature],
    zero: [...parent.zero, zero],
    one: [...parent.one, one],
    weight: [...parent.weight, depth === 0 ? 1 : 0],
  };
  const { weight } = path;
  for (let i = depth - 1; i >= 0; i--) {
    weight[i + 1] += (one * weight[i] * (i + 1)) / (depth + 1);
    weight[i] = (zero * weight[i] * (depth - i)) / (depth + 1);
  }
  return path;
}

/** The path without element `index`, as if it had never been extended by it. */
function unwind(path: ShapPath, index: number): ShapPath {
  const depth = path.feature.length - 1;
  const one = path.one[index];
  const zero = path.zero[index];
  const weight = path.weight.slice(0, depth);
  let next = path.weight[depth];
  for (let i = depth - 1; i >= 0; i--) {
    if (one !== 0) {
      const kept = weight[i];
      weight[i] = (next * (depth + 1)) / ((i + 1) * one);
      next = kept - (weight[i] * zero * (depth - i)) / (depth + 1);
    } else {
      weight[i] = (weight[i] * (depth + 1)) / (zero * (depth - i));
    }
  }
  const without = <T>(values: T[]) => values.filter((_, i) => i !== index);
  return { feature: without(path.feature), zero: without(path.zero), one: without(path.one), weight };
}

/** The sum of the weights `unwind(path, index)` would leave, without building it. */
function unwoundWeightSum(path: ShapPath, index: number): number {
  const depth = path.feature.length - 1;
  const one = path.one[index];
  const zero = path.zero[index];
  let next = path.weight[depth];
  let total = 0;
  for (let i = depth - 1; i >= 0; i--) {
    if (one !== 0) {
      const weight = (next * (depth + 1)) / ((i + 1) * one);
      total += weight;
      next = path.weight[i] - (weight * zero * (depth - i)) / (depth + 1);
    } else {
      total += (path.weight[i] * (depth + 1)) / (zero * (depth - i));
    }
  }
  return total;
}
