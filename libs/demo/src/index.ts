export { DEMO_DEFAULTS, type DemoOptions, generateDemoUsers } from './demo-generator';
export { demoOracleProbability, demoTargets, type DemoTruth, type DemoUserTruth, oracleProbability } from './demo-oracle';
export { DEMO_INTENT_SIGNALS, DEMO_TARGET_DESCRIPTIONS, DEMO_TARGETS, type DemoIntentSignal } from './demo-population';
export { generateSaasUsers, type SaasUserTruth } from './demo-saas';
export { SAAS_TARGET_DESCRIPTIONS, SAAS_TARGETS, type SaasTarget } from './demo-saas-model';
export { type DemoSeedOptions, seedDemo } from './demo-seeder';
export { DemoTruthFile } from './demo-truth-file';
