import { runInThisContext } from 'vm';
import { ONNX_INPUT, ONNX_LABEL_OUTPUT, ONNX_PROBABILITIES_OUTPUT } from './onnx-export';

/**
 * Jest runs specs in their own realm, but onnxruntime-node hands back typed arrays of the
 * main realm and checks them with `instanceof` against constructors it captured when it
 * loaded. Pointing this realm's globals at the main realm's constructors before loading
 * ORT makes both sides agree; production code never runs inside such a sandbox.
 */
export async function loadOnnxRuntime(): Promise<typeof import('onnxruntime-node')> {
  const realm = globalThis as unknown as Record<string, unknown>;
  for (const name of ['Float32Array', 'BigInt64Array']) realm[name] = runInThisContext(name);
  return import('onnxruntime-node');
}

export interface OnnxOutput {
  labels: BigInt64Array;
  probabilities: Float32Array;
}

/** One ONNX Runtime run of the exported graph over row-major float32 rows of `d` features, its outputs checked for shape. */
export async function runOnnx(bytes: Uint8Array, features: Float32Array, d: number): Promise<OnnxOutput> {
  const { InferenceSession, Tensor } = await loadOnnxRuntime();
  const session = await InferenceSession.create(bytes);
  try {
    expect(session.inputNames).toEqual([ONNX_INPUT]);
    expect([...session.outputNames].sort()).toEqual([ONNX_LABEL_OUTPUT, ONNX_PROBABILITIES_OUTPUT].sort());
    const input = new Tensor('float32', Float32Array.from(features), [features.length / d, d]);
    const result = await session.run({ [ONNX_INPUT]: input });
    const label = result[ONNX_LABEL_OUTPUT];
    const probabilities = result[ONNX_PROBABILITIES_OUTPUT];
    expect(label.type).toBe('int64');
    expect(label.dims).toEqual([features.length / d]);
    expect(probabilities.type).toBe('float32');
    expect(probabilities.dims).toEqual([features.length / d, 2]);
    return { labels: label.data as BigInt64Array, probabilities: probabilities.data as Float32Array };
  } finally {
    await session.release();
  }
}

