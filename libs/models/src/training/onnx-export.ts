import { INamespace, Root, Type } from 'protobufjs';
import type { PlattCalibration } from './calibration';
import { GbdtParameters } from './gbdt';
import { LogisticParameters } from './logistic.trainer';
import { ModelParameters } from './model-parameters';

/** Graph input: float32 [N, d], features in the order of the model's feature names. */
export const ONNX_INPUT = 'features';
/** Graph output: int64 [N], 1 when the positive probability exceeds 0.5. */
export const ONNX_LABEL_OUTPUT = 'label';
/** Graph output: float32 [N, 2], [P(negative), P(positive)] per row. */
export const ONNX_PROBABILITIES_OUTPUT = 'probabilities';
/** Graph output of a `value` model: float32 [N, 1], the amount model's score (log1p of the amount, given any). */
export const ONNX_AMOUNT_OUTPUT = 'amount';
/** Metadata key holding the JSON array of feature names (the input's column order). */
export const ONNX_FEATURE_NAMES_KEY = 'foresight.feature_names';
export const ONNX_ALGORITHM_KEY = 'foresight.algorithm';
/** Metadata key of what explanations need beside the graph (OnnxExplanationData as JSON); absent in models exported before them. */
export const ONNX_EXPLANATION_KEY = 'foresight.explanation';

/** The Platt map folded into the graph (its margin is a * raw + b), and per GBDT tree the cover of each node by node id. */
export interface OnnxExplanationData {
  calibration: PlattCalibration;
  covers?: number[][];
}

/** What a model exported without calibration has folded in. */
const IDENTITY_CALIBRATION: PlattCalibration = { a: 1, b: 0 };

const IR_VERSION = 8;
const DEFAULT_OPSET = 17;
const ML_DOMAIN = 'ai.onnx.ml';
const ML_OPSET = 3;

/** onnx.proto enum values used here. */
const ElemType = { FLOAT: 1, INT64: 7 } as const;
const AttrType = { INT: 2, STRING: 3, FLOATS: 6, INTS: 7, STRINGS: 8 } as const;

const repeated = (type: string, id: number) => ({ rule: 'repeated', type, id });

/**
 * The fields of onnx.proto (onnx/onnx, proto2) this exporter writes, with the official
 * field numbers; names are kept in snake_case as in the .proto file.
 */
const ONNX_SCHEMA: INamespace = {
  nested: {
    onnx: {
      nested: {
        ModelProto: {
          fields: {
            ir_version: { type: 'int64', id: 1 },
            producer_name: { type: 'string', id: 2 },
            graph: { type: 'GraphProto', id: 7 },
            opset_import: repeated('OperatorSetIdProto', 8),
            metadata_props: repeated('StringStringEntryProto', 14),
          },
        },
        StringStringEntryProto: {
          fields: { key: { type: 'string', id: 1 }, value: { type: 'string', id: 2 } },
        },
        OperatorSetIdProto: {
          fields: { domain: { type: 'string', id: 1 }, version: { type: 'int64', id: 2 } },
        },
        GraphProto: {
          fields: {
            node: repeated('NodeProto', 1),
            name: { type: 'string', id: 2 },
            initializer: repeated('TensorProto', 5),
            input: repeated('ValueInfoProto', 11),
            output: repeated('ValueInfoProto', 12),
          },
        },
        NodeProto: {
          fields: {
            input: repeated('string', 1),
            output: repeated('string', 2),
            name: { type: 'string', id: 3 },
            op_type: { type: 'string', id: 4 },
            attribute: repeated('AttributeProto', 5),
            domain: { type: 'string', id: 7 },
          },
        },
        AttributeProto: {
          fields: {
            name: { type: 'string', id: 1 },
            i: { type: 'int64', id: 3 },
            s: { type: 'bytes', id: 4 },
            floats: repeated('float', 7),
            ints: repeated('int64', 8),
            strings: repeated('bytes', 9),
            type: { type: 'int32', id: 20 },
          },
        },
        TensorProto: {
          fields: {
            dims: repeated('int64', 1),
            data_type: { type: 'int32', id: 2 },
            float_data: repeated('float', 4),
            int64_data: repeated('int64', 7),
            name: { type: 'string', id: 8 },
          },
        },
        ValueInfoProto: {
          fields: {
            name: { type: 'string', id: 1 },
            type: { type: 'TypeProto', id: 2 },
          },
        },
        TypeProto: {
          oneofs: { value: { oneof: ['tensor_type'] } },
          fields: { tensor_type: { type: 'Tensor', id: 1 } },
          nested: {
            Tensor: {
              fields: { elem_type: { type: 'int32', id: 1 }, shape: { type: 'TensorShapeProto', id: 2 } },
            },
          },
        },
        TensorShapeProto: {
          fields: { dim: repeated('Dimension', 1) },
          nested: {
            Dimension: {
              oneofs: { value: { oneof: ['dim_value', 'dim_param'] } },
              fields: {
                dim_value: { type: 'int64', id: 1 },
                dim_param: { type: 'string', id: 2 },
              },
            },
          },
        },
      },
    },
  },
};

let modelType: Type | null = null;
export function onnxModelType(): Type {
  modelType ??= Root.fromJSON(ONNX_SCHEMA).lookupType('onnx.ModelProto');
  return modelType;
}

// Plain-object shapes of the messages, as protobufjs `fromObject` accepts them.
interface Attribute {
  name: string;
  type: number;
  i?: number;
  s?: Uint8Array;
  floats?: number[];
  ints?: number[];
  strings?: Uint8Array[];
}
interface Node {
  input: string[];
  output: string[];
  name: string;
  op_type: string;
  domain?: string;
  attribute?: Attribute[];
}
interface Tensor {
  name: string;
  dims: number[];
  data_type: number;
  float_data?: number[];
  int64_data?: number[];
}
interface Dimension {
  dim_value?: number;
  dim_param?: string;
}
interface ValueInfo {
  name: string;
  type: { tensor_type: { elem_type: number; shape: { dim: Dimension[] } } };
}
interface Graph {
  name: string;
  node: Node[];
  initializer: Tensor[];
  input: ValueInfo[];
  output: ValueInfo[];
}

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const ints = (name: string, values: number[]): Attribute => ({ name, type: AttrType.INTS, ints: values });
const floats = (name: string, values: number[]): Attribute => ({ name, type: AttrType.FLOATS, floats: values });
const tensorInfo = (name: string, elemType: number, dims: Dimension[]): ValueInfo => ({
  name,
  type: { tensor_type: { elem_type: elemType, shape: { dim: dims } } },
});
const BATCH: Dimension = { dim_param: 'N' };

/**
 * Encodes a (calibrated) model as ONNX bytes. Input `features` float32 [N, d]; outputs
 * `label` int64 [N] and `probabilities` float32 [N, 2] for classes [0, 1]. The feature
 * names and algorithm ride along in metadata_props so a loader can check column order, and so does
 * what explains a prediction: the calibration folded into `parameters` and the GBDT trees' node covers.
 */
export function exportOnnx(
  parameters: ModelParameters,
  featureNames: string[],
  calibration: PlattCalibration = IDENTITY_CALIBRATION,
  metadata: Record<string, string> = {},
  /** A `value` model's amount regression: one more output, `amount`, from the same input. */
  amount?: GbdtParameters,
): Uint8Array {
  const d = featureNames.length;
  const graph = parameters.kind === 'logistic' ? logisticGraph(parameters, d) : parameters.linear ? linearGbdtGraph(parameters, parameters.linear, d) : gbdtGraph(parameters);
  graph.input = [tensorInfo(ONNX_INPUT, ElemType.FLOAT, [BATCH, { dim_value: d }])];
  graph.output = [
    tensorInfo(ONNX_LABEL_OUTPUT, ElemType.INT64, [BATCH]),
    tensorInfo(ONNX_PROBABILITIES_OUTPUT, ElemType.FLOAT, [BATCH, { dim_value: 2 }]),
  ];
  if (amount) {
    graph.node.push(regressorNode(amount, ONNX_AMOUNT_OUTPUT, 'amount_trees'));
    graph.output.push(tensorInfo(ONNX_AMOUNT_OUTPUT, ElemType.FLOAT, [BATCH, { dim_value: 1 }]));
  }
  const opsets = [{ domain: '', version: DEFAULT_OPSET }];
  if (parameters.kind === 'gbdt' || amount) opsets.push({ domain: ML_DOMAIN, version: ML_OPSET });
  const explanation: OnnxExplanationData = {
    calibration,
    ...(parameters.kind === 'gbdt' && { covers: parameters.trees.map((tree) => tree.cover.map(Math.fround)) }),
  };
  const props = {
    ...metadata,
    [ONNX_FEATURE_NAMES_KEY]: JSON.stringify(featureNames),
    [ONNX_ALGORITHM_KEY]: parameters.kind,
    [ONNX_EXPLANATION_KEY]: JSON.stringify(explanation),
  };
  const type = onnxModelType();
  const message = type.fromObject({
    ir_version: IR_VERSION,
    producer_name: 'foresight',
    opset_import: opsets,
    graph,
    metadata_props: Object.entries(props).map(([key, value]) => ({ key, value })),
  });
  return type.encode(message).finish();
}

/**
 * One TreeEnsembleClassifier with all leaf weights on class 0 and post_transform
 * LOGISTIC; for a binary ensemble ONNX Runtime then outputs [1 - p, p] with
 * p = sigmoid(sum of leaves + base). Checked against onnxruntime-node 1.30: when no
 * leaf weight is negative, ORT switches its label rule to "raw score > 0.5" (the label
 * then disagrees with the probabilities), so such a model has its first tree shifted
 * below zero and the base raised by the same amount.
 */
function gbdtGraph(parameters: GbdtParameters): Graph {
  const { trees, baseScore } = withNegativeLeaf(parameters);
  const { branches, leaves } = treeAttributes(trees);
  return {
    name: 'foresight_gbdt',
    initializer: [],
    input: [],
    output: [],
    node: [
      {
        input: [ONNX_INPUT],
        output: [ONNX_LABEL_OUTPUT, ONNX_PROBABILITIES_OUTPUT],
        name: 'trees',
        op_type: 'TreeEnsembleClassifier',
        domain: ML_DOMAIN,
        attribute: [
          ...branches,
          ints('class_treeids', leaves.tree),
          ints('class_nodeids', leaves.node),
          ints('class_ids', leaves.weight.map(() => 0)),
          floats('class_weights', leaves.weight),
          ints('classlabels_int64s', [0, 1]),
          floats('base_values', [baseScore]),
          { name: 'post_transform', type: AttrType.STRING, s: utf8('LOGISTIC') },
        ],
      },
    ],
  };
}

/** Trees as a score [N, 1] into `output`: the sum of their leaves plus the base, no transform (a `value` model's amount, or trees boosted from a linear margin). */
function regressorNode({ trees, baseScore }: GbdtParameters, output: string, name: string): Node {
  const { branches, leaves } = treeAttributes(trees);
  return {
    input: [ONNX_INPUT],
    output: [output],
    name,
    op_type: 'TreeEnsembleRegressor',
    domain: ML_DOMAIN,
    attribute: [
      ...branches,
      ints('target_treeids', leaves.tree),
      ints('target_nodeids', leaves.node),
      ints('target_ids', leaves.weight.map(() => 0)),
      floats('target_weights', leaves.weight),
      { name: 'n_targets', type: AttrType.INT, i: 1 },
      floats('base_values', [baseScore]),
      { name: 'aggregate_function', type: AttrType.STRING, s: utf8('SUM') },
      { name: 'post_transform', type: AttrType.STRING, s: utf8('NONE') },
    ],
  };
}

/** The `nodes_*` attributes of a tree ensemble, and its leaves (tree, node, weight) for the class or target attributes. */
function treeAttributes(trees: GbdtParameters['trees']): { branches: Attribute[]; leaves: { tree: number[]; node: number[]; weight: number[] } } {
  const nodeTree: number[] = [];
  const nodeId: number[] = [];
  const nodeFeature: number[] = [];
  const nodeMode: Uint8Array[] = [];
  const nodeValue: number[] = [];
  const nodeTrue: number[] = [];
  const nodeFalse: number[] = [];
  const leaves = { tree: [] as number[], node: [] as number[], weight: [] as number[] };
  const branch = utf8('BRANCH_LEQ');
  const leaf = utf8('LEAF');
  trees.forEach((tree, t) => {
    tree.feature.forEach((feature, node) => {
      const isLeaf = feature < 0;
      nodeTree.push(t);
      nodeId.push(node);
      nodeFeature.push(isLeaf ? 0 : feature);
      nodeMode.push(isLeaf ? leaf : branch);
      nodeValue.push(isLeaf ? 0 : tree.threshold[node]);
      // "true" is the x <= threshold branch.
      nodeTrue.push(isLeaf ? 0 : tree.left[node]);
      nodeFalse.push(isLeaf ? 0 : tree.right[node]);
      if (isLeaf) {
        leaves.tree.push(t);
        leaves.node.push(node);
        leaves.weight.push(tree.value[node]);
      }
    });
  });
  const branches = [
    ints('nodes_treeids', nodeTree),
    ints('nodes_nodeids', nodeId),
    ints('nodes_featureids', nodeFeature),
    { name: 'nodes_modes', type: AttrType.STRINGS, strings: nodeMode },
    floats('nodes_values', nodeValue),
    ints('nodes_truenodeids', nodeTrue),
    ints('nodes_falsenodeids', nodeFalse),
  ];
  return { branches, leaves };
}

function withNegativeLeaf(parameters: GbdtParameters): GbdtParameters {
  if (parameters.trees.length === 0) throw new RangeError('a GBDT model needs at least one tree');
  if (parameters.trees.some((tree) => tree.value.some((v, node) => tree.feature[node] < 0 && v < 0))) {
    return parameters;
  }
  const [first, ...rest] = parameters.trees;
  const shift = Math.max(...first.value) + 1;
  return {
    kind: 'gbdt',
    baseScore: Math.fround(parameters.baseScore + shift),
    trees: [{ ...first, value: first.value.map((v, node) => (first.feature[node] < 0 ? Math.fround(v - shift) : 0)) }, ...rest],
  };
}

const floatTensor = (name: string, dims: number[], values: number[]): Tensor => ({ name, dims, data_type: ElemType.FLOAT, float_data: values });
const plainNode = (op_type: string, input: string[], output: string[], attribute: Attribute[] = []): Node => ({ input, output, name: output[0], op_type, attribute });

/** The constants the linear margin and the probability nodes read. */
const CONSTANTS: Tensor[] = [
  floatTensor('one', [1], [1]),
  floatTensor('zero', [1], [0]),
  { name: 'flat', dims: [1], data_type: ElemType.INT64, int64_data: [-1] },
];

/**
 * Standard operators only: probabilities = [1 - s, s] with s = sigmoid((x' - center) . coef
 * + offset), label = margin > 0, where x' is log(1 + max(x, 0)) for log-scaled features and x
 * otherwise (mask * logged + (1 - mask) * x: exact in float32 for a 0/1 mask). Centring first
 * keeps float32 inference accurate when features have large means.
 */
function logisticGraph(parameters: LogisticParameters, d: number): Graph {
  const linear = linearMargin(parameters, d, 'margin');
  return {
    name: 'foresight_logistic',
    input: [],
    output: [],
    initializer: [...linear.initializer, ...CONSTANTS],
    node: [...linear.node, ...probabilityNodes('margin')],
  };
}

/**
 * Trees boosted from a linear margin (GbdtOptions.linearBase): the trees' sum plus base as a
 * regressor's score, the linear margin beside it as the logistic graph computes it, added in float32
 * (the order predictGbdtMargins follows), then the same probabilities and label as a logistic graph.
 */
function linearGbdtGraph(parameters: GbdtParameters, linear: LogisticParameters, d: number): Graph {
  const margin = linearMargin(linear, d, 'linear_margin');
  return {
    name: 'foresight_gbdt',
    input: [],
    output: [],
    initializer: [...margin.initializer, ...CONSTANTS],
    node: [
      regressorNode(parameters, 'tree_margin', 'trees'),
      ...margin.node,
      plainNode('Add', ['tree_margin', 'linear_margin'], ['margin']),
      ...probabilityNodes('margin'),
    ],
  };
}

/** Nodes computing a logistic model's margin [N, 1] into `output`, and the tensors they read besides CONSTANTS. */
function linearMargin(parameters: LogisticParameters, d: number, output: string): Pick<Graph, 'initializer' | 'node'> {
  const scaled = parameters.logScaled.includes(true);
  const mask = parameters.logScaled.map(Number);
  return {
    initializer: [
      ...(scaled ? [floatTensor('log_mask', [d], mask), floatTensor('plain_mask', [d], mask.map((m) => 1 - m))] : []),
      floatTensor('center', [d], parameters.center),
      floatTensor('coefficients', [d, 1], parameters.coefficients),
      floatTensor('offset', [1], [parameters.offset]),
    ],
    node: [
      ...(scaled
        ? [
            plainNode('Max', [ONNX_INPUT, 'zero'], ['nonnegative']),
            plainNode('Add', ['nonnegative', 'one'], ['shifted']),
            plainNode('Log', ['shifted'], ['logged']),
            plainNode('Mul', ['logged', 'log_mask'], ['logged_part']),
            plainNode('Mul', [ONNX_INPUT, 'plain_mask'], ['plain_part']),
            plainNode('Add', ['logged_part', 'plain_part'], ['scaled']),
          ]
        : []),
      plainNode('Sub', [scaled ? 'scaled' : ONNX_INPUT, 'center'], ['centered']),
      plainNode('MatMul', ['centered', 'coefficients'], ['product']),
      plainNode('Add', ['product', 'offset'], [output]),
    ],
  };
}

/** The graph's outputs from a margin [N, 1]: probabilities [1 - s, s] with s = sigmoid(margin), label = margin > 0. */
function probabilityNodes(margin: string): Node[] {
  return [
    plainNode('Sigmoid', [margin], ['positive']),
    plainNode('Sub', ['one', 'positive'], ['negative']),
    plainNode('Concat', ['negative', 'positive'], [ONNX_PROBABILITIES_OUTPUT], [{ name: 'axis', type: AttrType.INT, i: 1 }]),
    plainNode('Greater', [margin, 'zero'], ['is_positive']),
    plainNode('Cast', ['is_positive'], ['label_column'], [{ name: 'to', type: AttrType.INT, i: ElemType.INT64 }]),
    plainNode('Reshape', ['label_column', 'flat'], [ONNX_LABEL_OUTPUT]),
  ];
}
