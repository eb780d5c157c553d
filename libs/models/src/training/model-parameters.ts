import { GbdtParameters, predictGbdtMargins } from './gbdt';
import { LogisticParameters, predictLogisticMargins } from './logistic.trainer';

export type Algorithm = 'gbdt' | 'logistic';

/** Everything needed to predict; plain data, so it can be stored or posted to a thread. */
export type ModelParameters = GbdtParameters | LogisticParameters;

/** Log-odds of the positive class per row of a row-major float32 matrix of `d` columns. */
export function predictMargins(parameters: ModelParameters, features: Float32Array, d: number): Float64Array {
  return parameters.kind === 'gbdt'
    ? predictGbdtMargins(parameters, features, d)
    : predictLogisticMargins(parameters, features, d);
}
