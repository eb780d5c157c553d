import { type ExplainableModel, explainableModelOf, explainRow } from './explanation';
import { leafOf } from './gbdt';
import { sigmoid } from './log-loss';
import { predictLogisticMargins } from './logistic.trainer';
import { type ModelParameters, predictMargins } from './model-parameters';
import { ONNX_EXPLANATION_KEY, onnxModelType } from './onnx-export';
import { runOnnx } from './onnx-runtime.fixture';
import { makeSyntheticData } from './synthetic-data.fixture';
import { type TrainedModel, trainModel } from './train-model';

const D = 10;
const data = makeSyntheticData({ trainRows: 3000, validationRows: 600, features: D, positiveRate: 0.3, seed: 5 });
const { validation } = data.split;
const rows = validation.features.length / D;
const rowOf = (i: number) => validation.features.subarray(i * D, (i + 1) * D);

/**
 * The raw score (log-odds before calibration) of the graph's own parameters, summed in float64 and
 * independently of any attribution: leaf values (or logistic terms) plus the constant, with the
 * folded-in Platt map taken back out.
 */
function rawScore({ parameters, calibration }: ExplainableModel, row: Float32Array): number {
  const linear = parameters.kind === 'gbdt' ? parameters.linear : parameters;
  const linearMargin = linear ? predictLogisticMargins(linear, row, row.length)[0] : 0;
  const margin = parameters.kind === 'gbdt' ? parameters.trees.reduce((sum, tree) => sum + tree.value[leafOf(tree, row)], parameters.baseScore + linearMargin) : linearMargin;
  return (margin - calibration.b) / calibration.a;
}

const linearPartOf = (parameters: ModelParameters) => {
  if (parameters.kind !== 'gbdt' || !parameters.linear) return undefined;
  const { logScaled, coefficients, center, offset } = parameters.linear;
  return { logScaled, coefficients, center, offset };
};

const explained = (model: ExplainableModel, i: number) => {
  const { base, contributions } = explainRow(model, rowOf(i));
  return contributions.reduce((sum, c) => sum + c, base);
};

const MODELS: Array<[string, () => TrainedModel]> = [
  ['gbdt, depth 2', () => trainModel({ algorithm: 'gbdt', split: data.split, search: false, options: { maxDepth: 2, maxLeaves: 4 } })],
  ['gbdt, depth 4', () => trainModel({ algorithm: 'gbdt', split: data.split, search: false, options: { maxDepth: 4, maxLeaves: 12 } })],
  ['gbdt, depth 6 (searched)', () => trainModel({ algorithm: 'gbdt', split: data.split })],
  ['logistic', () => trainModel({ algorithm: 'logistic', split: data.split })],
  ['gbdt on a linear base', () => trainModel({ algorithm: 'gbdt', split: data.split, search: false, options: { linearBase: { l2: 1e-2, maxIterations: 5 } } })],
];

describe('explanations of trained models', () => {
  describe.each(MODELS)('%s', (_, train) => {
    const trained = train();
    const model = explainableModelOf(trained.onnx) as ExplainableModel;

    it('reads back from the ONNX bytes the model the graph computes, with its calibration', () => {
      expect(model).not.toBeNull();
      expect(model.parameters.kind).toBe(trained.algorithm);
      // A linear base, when the trees have one, is read back too (its intercept is derived for readers, not stored).
      expect(linearPartOf(model.parameters)).toEqual(linearPartOf(trained.parameters));
      expect(model.calibration).toEqual(trained.calibration);
      // The graph's model is the trained one: the same margins, up to the float32 rounding of ONNX's sums.
      const margins = predictMargins(trained.parameters, validation.features, D);
      for (let i = 0; i < rows; i++) {
        const graphMargin = rawScore(model, rowOf(i)) * model.calibration.a + model.calibration.b;
        expect(Math.abs(graphMargin - margins[i])).toBeLessThan(1e-5);
      }
    });

    it('splits the raw score exactly: base + contributions equals it to 1e-9 on every validation row', () => {
      let worst = 0;
      for (let i = 0; i < rows; i++) worst = Math.max(worst, Math.abs(explained(model, i) - rawScore(model, rowOf(i))));
      expect(worst).toBeLessThan(1e-9);
      // Not a trivial model: contributions differ between rows.
      expect(new Set(Array.from({ length: 20 }, (_, i) => explained(model, i).toFixed(6))).size).toBeGreaterThan(1);
    });

    it("agrees with ONNX Runtime's probabilities once calibrated, to float32 precision", async () => {
      // ORT sums leaves and products in float32 and outputs a float32 probability; the explanation is
      // float64. The same bound as the exporter's own parity test.
      const { probabilities } = await runOnnx(trained.onnx, validation.features, D);
      let worst = 0;
      for (let i = 0; i < rows; i++) {
        const served = sigmoid(model.calibration.a * explained(model, i) + model.calibration.b);
        worst = Math.max(worst, Math.abs(served - probabilities[2 * i + 1]));
      }
      expect(worst).toBeLessThan(1e-5);
    });
  });

  it('attributes a logistic model exactly its coefficient times the centred value', () => {
    const trained = trainModel({ algorithm: 'logistic', split: data.split });
    const model = explainableModelOf(trained.onnx) as ExplainableModel;
    if (trained.parameters.kind !== 'logistic') throw new Error('expected a logistic model');
    const { coefficients, center, logScaled } = trained.parameters;
    const { a } = trained.calibration;
    const row = rowOf(3);
    const { contributions } = explainRow(model, row);
    contributions.forEach((c, j) => {
      const x = logScaled[j] ? Math.fround(Math.log(Math.fround(Math.max(row[j], 0) + 1))) : row[j];
      expect(c).toBeCloseTo((coefficients[j] * Math.fround(x - center[j])) / a, 12);
    });
  });

  it('is null for a model exported before explanations were stored', () => {
    const trained = trainModel({ algorithm: 'gbdt', split: data.split, search: false, options: { maxDepth: 2, maxLeaves: 4 } });
    const type = onnxModelType();
    const message = type.toObject(type.decode(trained.onnx)) as { metadata_props: Array<{ key: string }> };
    const older = type.encode(type.fromObject({ ...message, metadata_props: message.metadata_props.filter(({ key }) => key !== ONNX_EXPLANATION_KEY) })).finish();
    expect(explainableModelOf(older)).toBeNull();
  });
});
