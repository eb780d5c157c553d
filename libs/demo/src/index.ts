export { DEMO_DEFAULTS, type DemoOptions, generateDemoUsers } from './demo-generator';
export { type DemoUserTruth, oracleProbability } from './demo-oracle';
export { DEMO_INTENT_SIGNALS, DEMO_TARGET_DESCRIPTIONS, DEMO_TARGETS, type DemoIntentSignal } from './demo-population';
export { seedDemo } from './demo-seeder';
export { DemoTruthFile } from './demo-truth-file';
