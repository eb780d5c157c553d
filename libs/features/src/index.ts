export {
  buildManifest,
  computeFeatures,
  featuresAt,
  firstIndexAtOrAfter,
  DAY_MS,
  FEATURE_WINDOW_DAYS,
  type Activity,
  type FeatureManifest,
} from './feature-definitions';
export type { FeatureEvent } from './feature-event';
