export { DEMO_DEFAULTS, generateDemoUsers, type DemoOptions } from './demo-generator';
export { oracleProbability, type DemoUserTruth } from './demo-oracle';
export { DEMO_TARGET_DESCRIPTIONS, DEMO_TARGETS } from './demo-population';
export { seedDemo } from './demo-seeder';
export { DemoTruthFile } from './demo-truth-file';
