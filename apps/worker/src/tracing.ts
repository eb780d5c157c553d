// Imported first by main.ts: OpenTelemetry must wrap http, pg, ioredis and bullmq before they load.
import { startTracing } from '@foresight/platform/tracing';

startTracing('worker');
