// Imported first by training.process.ts: OpenTelemetry must wrap pg before it loads (as the API's and the worker's preloads do).
import { startTracing } from '@foresight/platform/tracing';

startTracing('training');
