import { Reader } from 'protobufjs';
import { createRandom } from '@foresight/platform';
import { GbdtParameters } from './gbdt';
import { LogisticParameters } from './logistic.trainer';
import { ModelParameters } from './model-parameters';
import { exportOnnx, ONNX_ALGORITHM_KEY, ONNX_FEATURE_NAMES_KEY } from './onnx-export';
import { type OnnxOutput, runOnnx } from './onnx-runtime.fixture';
import { makeSyntheticData } from './synthetic-data.fixture';
import { predictProbabilities, trainModel } from './train-model';

/** ONNX and the TypeScript predictor agree on P(positive), its complement and the label. */
function expectParity(onnx: OnnxOutput, expected: Float64Array): void {
  let worst = 0;
  for (let i = 0; i < expected.length; i++) {
    const p = expected[i];
    worst = Math.max(worst, Math.abs(onnx.probabilities[2 * i + 1] - p), Math.abs(onnx.probabilities[2 * i] - (1 - p)));
    // Rows within rounding of the boundary may legitimately go either way.
    if (Math.abs(p - 0.5) > 1e-6) expect(onnx.labels[i]).toBe(p > 0.5 ? 1n : 0n);
  }
  expect(worst).toBeLessThan(1e-5);
}

describe('exportOnnx', () => {
  const data = makeSyntheticData({ trainRows: 3000, validationRows: 1000, features: 10, positiveRate: 0.3, seed: 11 });
  const { validation } = data.split;

  it.each([
    ['gbdt', { algorithm: 'gbdt' }],
    ['logistic', { algorithm: 'logistic' }],
    ['gbdt on a linear base', { algorithm: 'gbdt', search: false, options: { linearBase: { l2: 1e-2, maxIterations: 5 } } }],
  ] as const)('%s: onnxruntime reproduces the TypeScript probabilities', async (_, input) => {
    const model = trainModel({ ...input, split: data.split });
    const onnx = await runOnnx(model.onnx, validation.features, 10);
    const expected = predictProbabilities(model, validation.features);
    expectParity(onnx, expected);
    // Not a trivial model: both labels occur.
    expect(new Set(onnx.labels).size).toBe(2);
  });

  it('carries the feature manifest and algorithm in metadata_props', () => {
    const model = trainModel({ algorithm: 'logistic', split: data.split });
    const metadata = readOnnxMetadata(model.onnx);
    expect(JSON.parse(metadata[ONNX_FEATURE_NAMES_KEY])).toEqual(validation.featureNames);
    expect(metadata[ONNX_ALGORITHM_KEY]).toBe('logistic');
    expect(readOnnxMetadata(exportOnnx(model.parameters, ['a'], undefined, { 'foresight.model_id': 'mdl_x' }))).toMatchObject({
      'foresight.model_id': 'mdl_x',
    });
  });

  it('keeps label and probabilities consistent when every leaf weight is non-negative', async () => {
    // ORT decides such a binary ensemble's label by "score > 0.5" unless the exporter
    // shifts a tree below zero. Margins here are 0.1, 0.3 and 0.45: all positive label.
    const parameters: GbdtParameters = {
      kind: 'gbdt',
      baseScore: Math.fround(-0.2),
      trees: [
        { feature: [0, -1, -1], threshold: [Math.fround(0.5), 0, 0], left: [1, -1, -1], right: [2, -1, -1], value: [0, Math.fround(0.3), Math.fround(0.5)], cover: [10, 5, 5] },
        { feature: [-1], threshold: [0], left: [-1], right: [-1], value: [Math.fround(0.15)], cover: [10] },
      ],
    };
    const features = Float32Array.from([0, 1, 0.5]);
    const expected = predictProbabilities({ parameters, featureNames: ['x'] }, features);
    expect(Array.from(expected, (p) => p > 0.5)).toEqual([true, true, true]);
    expectParity(await runOnnx(exportOnnx(parameters, ['x']), features, 1), expected);
  });

  it('stays accurate in float32 for a logistic model over features with large means', async () => {
    // Folded into one intercept, this model's terms would be ~1e6 and cancel; float32
    // would then lose the whole signal. The centred form keeps every term small.
    const random = createRandom(3);
    const n = 500;
    const features = Float32Array.from({ length: n * 2 }, (_, k) => (k % 2 === 0 ? 1e6 : 5e4) + random() * 10);
    const parameters: LogisticParameters = {
      kind: 'logistic',
      logScaled: [false, false],
      coefficients: [Math.fround(0.8), Math.fround(-1.1)],
      center: [Math.fround(1e6 + 5), Math.fround(5e4 + 5)],
      offset: Math.fround(0.2),
      intercept: 0.2 - 0.8 * (1e6 + 5) + 1.1 * (5e4 + 5),
    };
    const model: { parameters: ModelParameters; featureNames: string[] } = { parameters, featureNames: ['a', 'b'] };
    const expected = predictProbabilities(model, features);
    expectParity(await runOnnx(exportOnnx(parameters, model.featureNames), features, 2), expected);
  });
});

/** ModelProto.metadata_props (field 14, StringStringEntryProto key = 1, value = 2), read from the wire format independently of the exporter. */
function readOnnxMetadata(bytes: Uint8Array): Record<string, string> {
  const metadata: Record<string, string> = {};
  const model = Reader.create(bytes);
  while (model.pos < model.len) {
    const tag = model.uint32();
    if (tag >>> 3 !== 14) {
      model.skipType(tag & 7);
      continue;
    }
    const entry = Reader.create(model.bytes());
    let key = '';
    let value = '';
    while (entry.pos < entry.len) {
      const field = entry.uint32();
      if (field >>> 3 === 1) key = entry.string();
      else if (field >>> 3 === 2) value = entry.string();
      else entry.skipType(field & 7);
    }
    metadata[key] = value;
  }
  return metadata;
}
