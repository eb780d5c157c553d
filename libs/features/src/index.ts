export {
  type Activity,
  buildManifest,
  computeFeatures,
  FEATURE_WINDOW_DAYS,
  type FeatureManifest,
  featuresAt,
  firstIndexAtOrAfter,
} from './feature-definitions';
export type { FeatureEvent } from './feature-event';
