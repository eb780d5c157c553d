/**
 * The tracing preload's entry (`@foresight/platform/tracing`), apart from the lib's main index because
 * it must load before anything that index brings in (pg, ioredis, bullmq).
 */
export { startTracing, stopTracing, type TracedProcess } from './tracing';
