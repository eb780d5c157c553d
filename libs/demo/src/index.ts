export { DEMO_DEFAULTS, type DemoOptions, generateDemoUsers } from './demo-generator';
export { type DemoUserTruth, oracleProbability } from './demo-oracle';
export { DEMO_TARGET_DESCRIPTIONS, DEMO_TARGETS } from './demo-population';
export { seedDemo } from './demo-seeder';
export { DemoTruthFile } from './demo-truth-file';
