export {
  buildManifest,
  computeFeatures,
  featuresAt,
  firstIndexAtOrAfter,
  FEATURE_WINDOW_DAYS,
  type Activity,
  type FeatureManifest,
} from './feature-definitions';
export type { FeatureEvent } from './feature-event';
