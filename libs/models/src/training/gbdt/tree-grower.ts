import { type BinnedRows, FEATURES_PER_PASS } from './binning';
import type { GbdtOptions } from './gbdt-options';
import type { RegressionTree } from './regression-tree';

const MIN_SPLIT_GAIN = 1e-12;

/** A tree as the training loop walks it: splits compare a feature's bins, right = left + 1. */
export interface BinnedTree {
  /** -1 for a leaf. */
  feature: Int32Array;
  /** Largest bin of the split's feature that goes left. */
  limit: Int32Array;
  left: Int32Array;
  value: Float64Array;
}

export interface GrownTree {
  tree: RegressionTree;
  binned: BinnedTree;
  gainByFeature: Float64Array;
}

export function addLeafValues(tree: BinnedTree, rows: BinnedRows, scores: Float64Array): void {
  const { feature, limit, left, value } = tree;
  const { bins, rows: n } = rows;
  for (let i = 0; i < n; i++) {
    let node = 0;
    let f = feature[0];
    while (f >= 0) {
      // Branch-free child choice: the comparison is unpredictable across rows.
      node = left[node] + (bins[f * n + i] > limit[node] ? 1 : 0);
      f = feature[node];
    }
    scores[i] += value[node];
  }
}

/**
 * Grows one tree at a time over pre-binned rows. All buffers are allocated once per fit:
 * rows of a leaf are a contiguous segment of `rows` (stably partitioned on each split),
 * each open leaf owns one histogram slot of interleaved [gradient, hessian, count], and
 * the larger child of a split gets its histogram by subtraction from the parent's.
 */
export class TreeGrower {
  /** The rows the tree is grown on (ascending row numbers of the binned rows), each leaf's a segment. */
  private readonly rows: Int32Array;
  private readonly scratch: Int32Array;
  private grad: Float64Array;
  private hess: Float64Array;
  /** The gradients and hessians of one leaf's rows, gathered in its order for the histogram passes. */
  private readonly leafGradients: Float64Array;
  private readonly leafHessians: Float64Array;
  private readonly histograms: Float64Array[];
  // Open leaves, indexed by leaf slot (== its histogram slot).
  private readonly leafStart: Int32Array;
  private readonly leafEnd: Int32Array;
  private readonly leafDepth: Int32Array;
  private readonly leafNode: Int32Array;
  private readonly leafGrad: Float64Array;
  private readonly leafHess: Float64Array;
  private readonly splitFeature: Int32Array;
  private readonly splitBin: Int32Array;
  private readonly splitGain: Float64Array;
  private readonly splitLeftGrad: Float64Array;
  private readonly splitLeftHess: Float64Array;

  constructor(
    private readonly binned: BinnedRows,
    n: number,
    private readonly thresholds: Float32Array[],
    private readonly opts: GbdtOptions,
  ) {
    this.rows = new Int32Array(n);
    this.scratch = new Int32Array(n);
    this.grad = new Float64Array(0);
    this.hess = new Float64Array(0);
    this.leafGradients = new Float64Array(n);
    this.leafHessians = new Float64Array(n);
    const slots = opts.maxLeaves;
    this.histograms = Array.from({ length: slots }, () => new Float64Array((binned.total + 1) * 3));
    this.leafStart = new Int32Array(slots);
    this.leafEnd = new Int32Array(slots);
    this.leafDepth = new Int32Array(slots);
    this.leafNode = new Int32Array(slots);
    this.leafGrad = new Float64Array(slots);
    this.leafHess = new Float64Array(slots);
    this.splitFeature = new Int32Array(slots);
    this.splitBin = new Int32Array(slots);
    this.splitGain = new Float64Array(slots);
    this.splitLeftGrad = new Float64Array(slots);
    this.splitLeftHess = new Float64Array(slots);
  }

  /** Grows one tree on the given rows (ascending ids) from their gradients and hessians. */
  grow(grad: Float64Array, hess: Float64Array, sample: Int32Array): GrownTree {
    const { opts } = this;
    const tree: RegressionTree = { feature: [-1], threshold: [0], left: [-1], right: [-1], value: [0], cover: [0] };
    const gainByFeature = new Float64Array(this.thresholds.length);
    const limits: number[] = [0];

    this.grad = grad;
    this.hess = hess;
    const m = sample.length;
    this.rows.set(sample);
    let g = 0;
    let h = 0;
    for (let k = 0; k < m; k++) {
      g += grad[sample[k]];
      h += hess[sample[k]];
    }
    this.openLeaf(0, 0, m, 0, 0, g, h);
    tree.cover[0] = h;
    this.buildHistogram(0);
    this.findBestSplit(0);
    let leaves = 1;

    while (leaves < opts.maxLeaves) {
      let best = -1;
      for (let s = 0; s < leaves; s++) {
        if (this.splitGain[s] > MIN_SPLIT_GAIN && (best < 0 || this.splitGain[s] > this.splitGain[best])) best = s;
      }
      if (best < 0) break;

      const f = this.splitFeature[best];
      const b = this.splitBin[best];
      const node = this.leafNode[best];
      const start = this.leafStart[best];
      const end = this.leafEnd[best];
      const depth = this.leafDepth[best] + 1;
      const mid = this.partition(start, end, f, b);
      const leftGrad = this.splitLeftGrad[best];
      const leftHess = this.splitLeftHess[best];
      const rightGrad = this.leafGrad[best] - leftGrad;
      const rightHess = this.leafHess[best] - leftHess;
      gainByFeature[f] += this.splitGain[best];

      const leftNode = tree.feature.length;
      const rightNode = leftNode + 1;
      tree.feature[node] = f;
      tree.threshold[node] = this.thresholds[f][b];
      limits[node] = b;
      tree.left[node] = leftNode;
      tree.right[node] = rightNode;
      for (let k = 0; k < 2; k++) {
        limits.push(0);
        tree.feature.push(-1);
        tree.threshold.push(0);
        tree.left.push(-1);
        tree.right.push(-1);
        tree.value.push(0);
      }
      tree.cover.push(leftHess, rightHess);

      // The smaller child gets a fresh histogram; the larger one is parent minus smaller,
      // computed in the parent's slot, which it inherits.
      const fresh = leaves++;
      const leftIsSmaller = mid - start <= end - mid;
      const leftSlot = leftIsSmaller ? fresh : best;
      const rightSlot = leftIsSmaller ? best : fresh;
      this.openLeaf(leftSlot, start, mid, depth, leftNode, leftGrad, leftHess);
      this.openLeaf(rightSlot, mid, end, depth, rightNode, rightGrad, rightHess);
      this.buildHistogram(fresh);
      const parent = this.histograms[best];
      const child = this.histograms[fresh];
      for (let k = 0; k < parent.length; k++) parent[k] -= child[k];
      this.findBestSplit(leftSlot);
      this.findBestSplit(rightSlot);
    }

    for (let s = 0; s < leaves; s++) {
      tree.value[this.leafNode[s]] = Math.fround((-this.leafGrad[s] / (this.leafHess[s] + opts.l2)) * opts.learningRate);
    }
    const binned: BinnedTree = {
      feature: Int32Array.from(tree.feature),
      limit: Int32Array.from(limits),
      left: Int32Array.from(tree.left),
      value: Float64Array.from(tree.value),
    };
    return { tree, binned, gainByFeature };
  }

  private openLeaf(slot: number, start: number, end: number, depth: number, node: number, g: number, h: number): void {
    this.leafStart[slot] = start;
    this.leafEnd[slot] = end;
    this.leafDepth[slot] = depth;
    this.leafNode[slot] = node;
    this.leafGrad[slot] = g;
    this.leafHess[slot] = h;
    this.splitGain[slot] = 0;
  }

  /**
   * FEATURES_PER_PASS features at a time over the leaf's rows: each pass adds into those features'
   * bins only, so the adds stay in L1. Each bin still sums its rows in the leaf's order.
   */
  private buildHistogram(slot: number): void {
    const hist = this.histograms[slot];
    hist.fill(0);
    const { rows, grad, hess, leafGradients, leafHessians } = this;
    const { bins, rows: n, columns, offset, total } = this.binned;
    const start = this.leafStart[slot];
    const m = this.leafEnd[slot] - start;
    for (let k = 0; k < m; k++) {
      const i = rows[start + k];
      leafGradients[k] = grad[i];
      leafHessians[k] = hess[i];
    }
    const first = (f: number) => (f < offset.length ? offset[f] : total) * 3;
    for (let f = 0; f < columns; f += FEATURES_PER_PASS) {
      const a = f * n;
      const b = a + n;
      const c = b + n;
      const e = c + n;
      const ha = first(f);
      const hb = first(f + 1);
      const hc = first(f + 2);
      const he = first(f + 3);
      for (let k = 0; k < m; k++) {
        const i = rows[start + k];
        const g = leafGradients[k];
        const h = leafHessians[k];
        let p = ha + bins[a + i] * 3;
        hist[p] += g;
        hist[p + 1] += h;
        hist[p + 2] += 1;
        p = hb + bins[b + i] * 3;
        hist[p] += g;
        hist[p + 1] += h;
        hist[p + 2] += 1;
        p = hc + bins[c + i] * 3;
        hist[p] += g;
        hist[p + 1] += h;
        hist[p + 2] += 1;
        p = he + bins[e + i] * 3;
        hist[p] += g;
        hist[p + 1] += h;
        hist[p + 2] += 1;
      }
    }
  }

  /** Stable partition of a leaf's segment: rows with bin <= b first. Returns the boundary. */
  private partition(start: number, end: number, f: number, b: number): number {
    const { rows, scratch } = this;
    const { bins, rows: n } = this.binned;
    const column = f * n;
    let left = start;
    let right = 0;
    for (let k = start; k < end; k++) {
      const i = rows[k];
      if (bins[column + i] <= b) rows[left++] = i;
      else scratch[right++] = i;
    }
    rows.set(scratch.subarray(0, right), left);
    return left;
  }

  /** Records the best split of a leaf (gain 0 when it may not or cannot split). */
  private findBestSplit(slot: number): void {
    const { opts } = this;
    const { offset, count: binCount } = this.binned;
    const count = this.leafEnd[slot] - this.leafStart[slot];
    if (this.leafDepth[slot] >= opts.maxDepth || count < 2 * opts.minSamplesLeaf) return;
    const hist = this.histograms[slot];
    const G = this.leafGrad[slot];
    const H = this.leafHess[slot];
    const lambda = opts.l2;
    const minSamples = opts.minSamplesLeaf;
    const minHess = opts.minHessianLeaf;
    const parentScore = (G * G) / (H + lambda);
    let bestGain = 0;
    for (let f = 0; f < binCount.length; f++) {
      const last = binCount[f] - 1;
      let gl = 0;
      let hl = 0;
      let cl = 0;
      for (let b = 0; b < last; b++) {
        const p = (offset[f] + b) * 3;
        gl += hist[p];
        hl += hist[p + 1];
        cl += hist[p + 2];
        if (cl < minSamples || hl < minHess) continue;
        const hr = H - hl;
        if (count - cl < minSamples || hr < minHess) break;
        const gr = G - gl;
        // Half the drop in the second-order approximation of the loss (XGBoost's gain).
        const gain = 0.5 * ((gl * gl) / (hl + lambda) + (gr * gr) / (hr + lambda) - parentScore);
        if (gain > bestGain) {
          bestGain = gain;
          this.splitFeature[slot] = f;
          this.splitBin[slot] = b;
          this.splitLeftGrad[slot] = gl;
          this.splitLeftHess[slot] = hl;
        }
      }
    }
    this.splitGain[slot] = bestGain;
  }
}
