import { type TracingSettings, tracingSettings } from '../config/config';
import type { Tracing } from './tracing-sdk';

/** The service's processes: the API, the worker, and the training processes a worker starts (train-in-process.ts). */
export type TracedProcess = 'api' | 'worker' | 'training';

type TracingSdk = typeof import('./tracing-sdk');

let running: Tracing | undefined;

/**
 * Starts OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set. Each entry point calls it from its
 * first import, before http, pg, ioredis or bullmq are loaded, so the instrumentations can wrap them.
 * Without an endpoint it loads nothing: the SDK is required only past this check.
 */
export function startTracing(process: TracedProcess, settings: TracingSettings | undefined = tracingSettings(), load: () => TracingSdk = loadSdk): boolean {
  if (settings === undefined || running !== undefined) return false;
  running = load().registerTracing(settings, `${settings.serviceName}-${process}`);
  return true;
}

/** Sends the spans still buffered, at shutdown. */
export async function stopTracing(): Promise<void> {
  await running?.shutdown();
  running = undefined;
}

function loadSdk(): TracingSdk {
  // A synchronous require on purpose: the instrumentations must be registered before the entry point's next import.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above: an import would be hoisted or asynchronous
  return require('./tracing-sdk') as TracingSdk;
}
