export { DEMO_DEFAULTS, type DemoOptions, generateDemoUsers } from './demo-generator';
export { type DemoTruth, type DemoUserTruth, demoOracleProbability, demoTargets, oracleProbability } from './demo-oracle';
export { DEMO_INTENT_SIGNALS, DEMO_TARGET_DESCRIPTIONS, DEMO_TARGETS, type DemoIntentSignal } from './demo-population';
export { type DemoSeedOptions, seedDemo } from './demo-seeder';
export { DemoTruthFile } from './demo-truth-file';
export { generateSaasUsers, type SaasUserTruth } from './demo-saas';
export { SAAS_TARGET_DESCRIPTIONS, SAAS_TARGETS, type SaasTarget } from './demo-saas-model';
