export type { BinnedRows } from './binning';
export { binOf, binRows, computeBinThresholds } from './binning';
export type { GbdtFit } from './boosting';
export { fitGbdt } from './boosting';
export type { GbdtOptions } from './gbdt-options';
export { DEFAULT_GBDT_OPTIONS, resolveGbdtOptions } from './gbdt-options';
export { kthLargest } from './goss-sampler';
export type { GbdtParameters, RegressionTree } from './regression-tree';
export { predictGbdtMargins } from './regression-tree';
