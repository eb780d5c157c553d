import { ModelParameters, predictMargins } from './model-parameters';

/** Whether a higher value of a feature raises or lowers the predicted probability, or leaves it unchanged. */
export type FeatureDirection = 'raises' | 'lowers' | 'none';

/** Validation rows the partial dependence averages over: enough for a stable sign, cheap for hundreds of trees. */
const MAX_SAMPLE_ROWS = 200;
/** The grid of feature values, as quantiles of the feature on the validation rows. */
const GRID_QUANTILES = [0.05, 0.25, 0.5, 0.75, 0.95];
/** A margin change below this (log-odds) is no effect: float32 trees move margins by at least ~1e-7. */
const NO_EFFECT = 1e-6;

/**
 * The direction of each feature's effect, for either algorithm: the partial dependence of the margin
 * (log-odds) on the feature over a grid of its validation quantiles, averaged over sampled validation
 * rows, and the sign of its correlation with the grid. For a logistic model that is the sign of the
 * coefficient; for trees it is the overall tendency (a U-shaped effect reports its stronger side).
 */
export function featureDirections(parameters: ModelParameters, features: Float32Array, d: number): FeatureDirection[] {
  const rows = features.length / d;
  const step = Math.max(1, Math.floor(rows / MAX_SAMPLE_ROWS));
  const sample = new Float32Array(Math.ceil(rows / step) * d);
  let sampled = 0;
  for (let i = 0; i < rows; i += step, sampled++) sample.set(features.subarray(i * d, (i + 1) * d), sampled * d);
  const probe = sample.subarray(0, sampled * d);

  const directions: FeatureDirection[] = [];
  for (let j = 0; j < d; j++) {
    const grid = quantileGrid(features, d, j);
    if (grid.length < 2) {
      directions.push('none');
      continue;
    }
    const dependence = grid.map((value) => meanMargin(parameters, withColumn(probe, d, j, value), d));
    directions.push(direction(grid, dependence));
  }
  return directions;
}

function quantileGrid(features: Float32Array, d: number, column: number): number[] {
  const values = new Float32Array(features.length / d);
  for (let i = 0; i < values.length; i++) values[i] = features[i * d + column];
  values.sort();
  const grid = GRID_QUANTILES.map((q) => values[Math.min(values.length - 1, Math.floor(q * values.length))]);
  return [...new Set(grid)];
}

function withColumn(rows: Float32Array, d: number, column: number, value: number): Float32Array {
  const copy = rows.slice();
  for (let o = column; o < copy.length; o += d) copy[o] = value;
  return copy;
}

function meanMargin(parameters: ModelParameters, rows: Float32Array, d: number): number {
  const margins = predictMargins(parameters, rows, d);
  return margins.reduce((sum, margin) => sum + margin, 0) / margins.length;
}

/** The sign of the covariance of the grid's ranks and the dependence; no effect when the dependence is flat. */
function direction(grid: number[], dependence: number[]): FeatureDirection {
  if (Math.max(...dependence) - Math.min(...dependence) < NO_EFFECT) return 'none';
  const meanRank = (grid.length - 1) / 2;
  const meanDependence = dependence.reduce((a, b) => a + b, 0) / dependence.length;
  const covariance = dependence.reduce((sum, value, rank) => sum + (rank - meanRank) * (value - meanDependence), 0);
  if (Math.abs(covariance) < NO_EFFECT) return 'none';
  return covariance > 0 ? 'raises' : 'lowers';
}

/** Importance entries with the direction of their feature added. */
export function withDirections<T extends { feature: string }>(importance: T[], featureNames: string[], directions: FeatureDirection[]): Array<T & { direction: FeatureDirection }> {
  const byName = new Map(featureNames.map((name, j) => [name, directions[j] ?? 'none']));
  return importance.map((entry) => ({ ...entry, direction: byName.get(entry.feature) ?? 'none' }));
}
