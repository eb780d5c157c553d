import type { PlattCalibration } from './calibration';
import { addTreeShap, expectedTreeValue, type GbdtParameters, type RegressionTree } from './gbdt';
import { type LogisticParameters, logisticTerm } from './logistic.trainer';
import type { ModelParameters } from './model-parameters';
import { ONNX_ALGORITHM_KEY, ONNX_EXPLANATION_KEY, ONNX_INPUT, type OnnxExplanationData, onnxModelType } from './onnx-export';

/** A model as its ONNX graph computes it, with the calibration folded into it. */
export interface ExplainableModel {
  /** The graph's own parameters: float32 values, calibrated; GBDT trees with their node covers. */
  parameters: ModelParameters;
  calibration: PlattCalibration;
}

/**
 * One row's raw score (log-odds before calibration) split exactly: `base` plus every contribution.
 * TreeSHAP (path-dependent) for trees; coefficient times centred value for logistic regression,
 * which is its standardized coefficient times the standardized value.
 */
export interface Explanation {
  base: number;
  /** One per feature, in the model's feature order. */
  contributions: Float64Array;
}

/**
 * Explains one row (float32 values in the model's feature order). Platt scaling is affine in the
 * margin, so the raw score's attributions are the graph's divided by its slope.
 */
export function explainRow({ parameters, calibration }: ExplainableModel, row: ArrayLike<number>): Explanation {
  const { base, contributions } = parameters.kind === 'gbdt' ? explainTrees(parameters, row) : explainLogistic(parameters, row);
  const { a, b } = calibration;
  return { base: (base - b) / a, contributions: contributions.map((c) => c / a) };
}

/** TreeSHAP of the trees, plus the linear part's exact terms when they were boosted from one: both are additive in the margin. */
function explainTrees({ baseScore, trees, linear }: GbdtParameters, row: ArrayLike<number>): Explanation {
  const { base: linearBase, contributions } = linear ? explainLogistic(linear, row) : { base: 0, contributions: new Float64Array(row.length) };
  let base = baseScore + linearBase;
  for (const tree of trees) {
    base += expectedTreeValue(tree);
    addTreeShap(tree, row, contributions);
  }
  return { base, contributions };
}

/** Rows meanAbsoluteContributions averages over at most: an evenly spaced share of them beyond. */
const MAX_IMPORTANCE_ROWS = 2000;

/**
 * Mean |contribution| of each feature to the raw margin over the rows of a row-major matrix: how much a
 * feature moves the scores it explains, in the margin's units whatever part of the model (trees or a
 * linear base) it acts through.
 */
export function meanAbsoluteContributions(parameters: ModelParameters, features: Float32Array, d: number): Float64Array {
  const n = features.length / d;
  const step = Math.max(1, Math.ceil(n / MAX_IMPORTANCE_ROWS));
  const sums = new Float64Array(d);
  let rows = 0;
  for (let i = 0; i < n; i += step) {
    const { contributions } = explainRow({ parameters, calibration: { a: 1, b: 0 } }, features.subarray(i * d, (i + 1) * d));
    for (let j = 0; j < d; j++) sums[j] += Math.abs(contributions[j]);
    rows++;
  }
  return sums.map((sum) => sum / Math.max(1, rows));
}

function explainLogistic(parameters: LogisticParameters, row: ArrayLike<number>): Explanation {
  return { base: parameters.offset, contributions: Float64Array.from({ length: row.length }, (_, j) => logisticTerm(parameters, j, row[j])) };
}

interface DecodedAttribute {
  name: string;
  i?: number;
  s?: Uint8Array;
  floats?: number[];
  ints?: number[];
  strings?: Uint8Array[];
}
interface DecodedTensor {
  name: string;
  float_data?: number[];
}
interface DecodedModel {
  metadata_props?: Array<{ key: string; value: string }>;
  graph: {
    node: Array<{ name?: string; op_type: string; attribute?: DecodedAttribute[] }>;
    initializer?: DecodedTensor[];
    input: Array<{ name: string; type: { tensor_type: { shape: { dim: Array<{ dim_value?: number }> } } } }>;
  };
}

/**
 * The model an exported ONNX graph computes, read back from its bytes (the graph is the one source of
 * the trees and coefficients). Null for a model exported before explanations were stored: its node
 * covers came from training rows that are gone, and its calibration was not kept.
 */
export function explainableModelOf(onnx: Uint8Array): ExplainableModel | null {
  const type = onnxModelType();
  const model = type.toObject(type.decode(onnx), { longs: Number, defaults: false }) as DecodedModel;
  const metadata = new Map((model.metadata_props ?? []).map(({ key, value }) => [key, value]));
  const stored = metadata.get(ONNX_EXPLANATION_KEY);
  if (stored === undefined) return null;
  const explanation = JSON.parse(stored) as OnnxExplanationData;
  const d = model.graph.input.find((input) => input.name === ONNX_INPUT)?.type.tensor_type.shape.dim[1]?.dim_value ?? 0;
  const parameters = metadata.get(ONNX_ALGORITHM_KEY) === 'gbdt' ? gbdtOf(model, explanation.covers ?? [], d) : logisticOf(model, d);
  return { parameters, calibration: explanation.calibration };
}

/**
 * The trees are the node named `trees`: a classifier, or a regressor (target_* leaves) when they were
 * boosted from a linear margin, whose coefficients are then the graph's initializers.
 */
function gbdtOf(model: DecodedModel, covers: number[][], d: number): GbdtParameters {
  const ensemble = model.graph.node.find((node) => node.name === 'trees');
  const leafPrefix = ensemble?.op_type === 'TreeEnsembleRegressor' ? 'target' : 'class';
  const attributes = new Map((ensemble?.attribute ?? []).map((attribute) => [attribute.name, attribute]));
  const ints = (name: string) => attributes.get(name)?.ints ?? [];
  const floats = (name: string) => attributes.get(name)?.floats ?? [];
  const modes = (attributes.get('nodes_modes')?.strings ?? []).map((mode) => new TextDecoder().decode(mode));
  const trees: RegressionTree[] = covers.map((cover) => {
    const size = cover.length;
    const zeros = () => new Array<number>(size).fill(0);
    return { feature: zeros(), threshold: zeros(), left: zeros(), right: zeros(), value: zeros(), cover };
  });
  const [treeIds, nodeIds, featureIds, values, trueIds, falseIds] = [
    ints('nodes_treeids'),
    ints('nodes_nodeids'),
    ints('nodes_featureids'),
    floats('nodes_values'),
    ints('nodes_truenodeids'),
    ints('nodes_falsenodeids'),
  ];
  treeIds.forEach((t, k) => {
    const tree = trees[t];
    const node = nodeIds[k];
    const leaf = modes[k] === 'LEAF';
    tree.feature[node] = leaf ? -1 : featureIds[k];
    tree.threshold[node] = leaf ? 0 : values[k];
    tree.left[node] = leaf ? -1 : trueIds[k];
    tree.right[node] = leaf ? -1 : falseIds[k];
  });
  const weights = floats(`${leafPrefix}_weights`);
  const leafNodes = ints(`${leafPrefix}_nodeids`);
  ints(`${leafPrefix}_treeids`).forEach((t, k) => (trees[t].value[leafNodes[k]] = weights[k]));
  const linear = model.graph.initializer?.some((tensor) => tensor.name === 'coefficients');
  return { kind: 'gbdt', baseScore: floats('base_values')[0] ?? 0, trees, ...(linear && { linear: logisticOf(model, d) }) };
}

function logisticOf(model: DecodedModel, d: number): LogisticParameters {
  const tensors = new Map((model.graph.initializer ?? []).map((tensor) => [tensor.name, tensor.float_data ?? []]));
  const coefficients = tensors.get('coefficients') ?? [];
  const center = tensors.get('center') ?? [];
  const offset = tensors.get('offset')?.[0] ?? 0;
  const logMask = tensors.get('log_mask');
  return {
    kind: 'logistic',
    logScaled: Array.from({ length: d }, (_, j) => logMask?.[j] === 1),
    coefficients,
    center,
    offset,
    intercept: offset - coefficients.reduce((sum, c, j) => sum + c * center[j], 0),
  };
}
