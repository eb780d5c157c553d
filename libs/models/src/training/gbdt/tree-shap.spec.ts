import { createRandom } from '@foresight/platform';
import { leafOf, type RegressionTree } from './regression-tree';
import { addTreeShap, expectedTreeValue } from './tree-shap';

type Random = () => number;

/** A random tree over `d` features, up to `depth` deep, that may split on one feature several times along a path. */
function randomTree(random: Random, d: number, depth: number): RegressionTree {
  const tree: RegressionTree = { feature: [], threshold: [], left: [], right: [], value: [], cover: [] };
  const grow = (level: number): number => {
    const node = tree.feature.length;
    tree.feature.push(-1);
    tree.threshold.push(0);
    tree.left.push(-1);
    tree.right.push(-1);
    tree.value.push(0);
    tree.cover.push(0);
    if (level === depth || (level > 0 && random() < 0.25)) {
      tree.value[node] = Math.fround(random() * 4 - 2);
      tree.cover[node] = 1 + Math.floor(random() * 50);
      return node;
    }
    tree.feature[node] = Math.floor(random() * d);
    tree.threshold[node] = Math.fround(Math.floor(random() * 5) / 4);
    tree.left[node] = grow(level + 1);
    tree.right[node] = grow(level + 1);
    tree.cover[node] = tree.cover[tree.left[node]] + tree.cover[tree.right[node]];
    return node;
  };
  grow(0);
  return tree;
}

/** Values on the thresholds' grid (so ties with `<=` occur), and sometimes missing. */
function randomRow(random: Random, d: number): number[] {
  return Array.from({ length: d }, () => (random() < 0.15 ? NaN : Math.floor(random() * 6) / 4 - 0.125 * Math.floor(random() * 2)));
}

/**
 * E[f(x) | x_S] as path-dependent TreeSHAP defines it: a split on a known feature follows the row
 * (exactly as leafOf decides), any other split averages its children by cover.
 */
function conditionalExpectation(tree: RegressionTree, row: number[], known: Set<number>, node = 0): number {
  if (tree.feature[node] < 0) return tree.value[node];
  const { left, right, cover } = tree;
  if (known.has(tree.feature[node])) {
    return conditionalExpectation(tree, row, known, row[tree.feature[node]] <= tree.threshold[node] ? left[node] : right[node]);
  }
  const total = cover[left[node]] + cover[right[node]];
  return (cover[left[node]] * conditionalExpectation(tree, row, known, left[node]) + cover[right[node]] * conditionalExpectation(tree, row, known, right[node])) / total;
}

const factorial = (n: number): number => (n <= 1 ? 1 : n * factorial(n - 1));

/** Shapley values by their definition: every subset of the other features, weighted |S|!(M-|S|-1)!/M!. */
function bruteForceShapley(trees: RegressionTree[], row: number[]): number[] {
  const d = row.length;
  const value = (known: Set<number>) => trees.reduce((sum, tree) => sum + conditionalExpectation(tree, row, known), 0);
  return Array.from({ length: d }, (_, i) => {
    let phi = 0;
    for (let mask = 0; mask < 1 << d; mask++) {
      if (mask & (1 << i)) continue;
      const known = new Set(Array.from({ length: d }, (_, j) => j).filter((j) => mask & (1 << j)));
      const weight = (factorial(known.size) * factorial(d - known.size - 1)) / factorial(d);
      phi += weight * (value(new Set([...known, i])) - value(known));
    }
    return phi;
  });
}

function treeShap(trees: RegressionTree[], row: number[]): { base: number; phi: Float64Array } {
  const phi = new Float64Array(row.length);
  for (const tree of trees) addTreeShap(tree, row, phi);
  return { base: trees.reduce((sum, tree) => sum + expectedTreeValue(tree), 0), phi };
}

describe('TreeSHAP (path-dependent, Algorithm 2)', () => {
  it.each([
    [1, 1, 1],
    [3, 3, 1],
    [4, 5, 1],
    [5, 4, 3],
    [6, 6, 4],
  ])('equals the brute-force Shapley values on random trees (%i features, depth %i, %i trees)', (d, depth, treeCount) => {
    const random = createRandom(1000 * d + 10 * depth + treeCount);
    for (let trial = 0; trial < 40; trial++) {
      const trees = Array.from({ length: treeCount }, () => randomTree(random, d, depth));
      const row = randomRow(random, d);
      const { base, phi } = treeShap(trees, row);
      const expected = bruteForceShapley(trees, row);
      expected.forEach((value, j) => expect(Math.abs(phi[j] - value)).toBeLessThan(1e-9));
      // The empty coalition is the expected value.
      expect(Math.abs(base - trees.reduce((sum, tree) => sum + conditionalExpectation(tree, row, new Set()), 0))).toBeLessThan(1e-9);
    }
  });

  it('adds up to the leaf the row reaches, missing values going right as the learner sends them', () => {
    const random = createRandom(7);
    let missingRows = 0;
    for (let trial = 0; trial < 300; trial++) {
      const tree = randomTree(random, 8, 8);
      const row = randomRow(random, 8);
      if (row.some(Number.isNaN)) missingRows++;
      const { base, phi } = treeShap([tree], row);
      const sum = phi.reduce((s, v) => s + v, base);
      expect(Math.abs(sum - tree.value[leafOf(tree, row)])).toBeLessThan(1e-9);
    }
    expect(missingRows).toBeGreaterThan(50);
  });

  it('gives nothing to a feature the trees never split on, and the whole difference to the only one they do', () => {
    const stump: RegressionTree = { feature: [1, -1, -1], threshold: [0.5, 0, 0], left: [1, -1, -1], right: [2, -1, -1], value: [0, -1, 3], cover: [4, 3, 1] };
    const { base, phi } = treeShap([stump], [9, 0.7, 9]);
    expect(base).toBeCloseTo(0, 12);
    expect([...phi]).toEqual([0, 3, 0]);
  });
});
