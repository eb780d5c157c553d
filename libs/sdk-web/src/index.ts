import { ForesightClient, type ForesightOptions } from './client';
import { browserStore } from './storage';

export type { ForesightOptions } from './client';

let client: ForesightClient | undefined;

/**
 * Served by Foresight itself, foresight.js comes from the API's own address: the default apiHost.
 * Read while the script runs; currentScript is null afterwards, and in ES modules.
 */
const scriptOrigin = typeof document === 'undefined' ? undefined : originOf(document.currentScript);

/** Starts the SDK with an ingest-only token. Later calls are ignored: one page, one configuration. */
export function init(token: string, options: ForesightOptions = {}): void {
  if (client) return;
  if (typeof token !== 'string' || token.length === 0) throw new TypeError('Foresight.init needs an ingest token');
  client = new ForesightClient(token, { ...options, apiHost: options.apiHost ?? scriptOrigin ?? location.origin }, browserStore());
}

export function track(event: string, properties?: Record<string, unknown>): void {
  client?.track(event, properties);
}

export function identify(userId: string): void {
  client?.identify(userId);
}

export function page(): void {
  client?.page();
}

export function screen(name: string): void {
  client?.screen(name);
}

export function reset(): void {
  client?.reset();
}

export function enableTracking(): void {
  client?.enableTracking();
}

export function disableTracking(): void {
  client?.disableTracking();
}

function originOf(script: HTMLOrSVGScriptElement | null): string | undefined {
  return script instanceof HTMLScriptElement && script.src ? new URL(script.src).origin : undefined;
}
