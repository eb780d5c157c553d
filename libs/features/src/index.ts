export {
  type Activity,
  computeFeatures,
  computeFeaturesOfEach,
  FEATURE_WINDOW_DAYS,
  featuresAt,
  featuresOfEachAt,
  firstIndexAtOrAfter,
  TARGET_NOT_IN_WINDOW_DAYS,
} from './feature-definitions';
export type { FeatureEvent } from './feature-event';
export { featureLabel } from './feature-labels';
export { buildManifest, type FeatureChoice, type FeatureManifest, narrowManifest, type NumericProperty, type TrainingDraw } from './feature-manifest';
export { normalisedScreenOf, normaliseScreen } from './screen-path';
