import type { SdkEvent } from './payload';
import { parseJson } from './session';
import type { KeyValueStore } from './storage';

/** Unsent events kept at most; beyond it the oldest go first (an offline visitor must not fill the disk). */
export const MAX_QUEUED_EVENTS = 500;
/** Events per request: small enough for a keepalive body (64 KiB), far below the server's 1,000. */
export const MAX_BATCH_EVENTS = 50;
const FIRST_RETRY_DELAY_MS = 1_000;
const MAX_RETRY_DELAY_MS = 5 * 60_000;
const QUEUE_KEY = 'queue';

/**
 * Unsent events, in storage so that a closed tab or a network outage loses nothing: sent on the
 * next page load. Read and written whole on each change, so the tabs of one site share it; a batch
 * two tabs both send is stored once, by messageId.
 */
export class EventQueue {
  constructor(
    private readonly store: KeyValueStore,
    private readonly capacity = MAX_QUEUED_EVENTS,
  ) {}

  add(event: SdkEvent): void {
    this.save([...this.all(), event].slice(-this.capacity));
  }

  /** The oldest events, up to one batch. */
  peek(limit = MAX_BATCH_EVENTS): SdkEvent[] {
    return this.all().slice(0, limit);
  }

  remove(events: readonly SdkEvent[]): void {
    const removed = new Set(events.map((event) => event.messageId));
    this.save(this.all().filter((event) => !removed.has(event.messageId)));
  }

  clear(): void {
    this.store.remove(QUEUE_KEY);
  }

  get size(): number {
    return this.all().length;
  }

  private all(): SdkEvent[] {
    const events = parseJson(this.store.get(QUEUE_KEY));
    return Array.isArray(events) ? (events as SdkEvent[]) : [];
  }

  private save(events: SdkEvent[]): void {
    if (events.length > 0) this.store.set(QUEUE_KEY, JSON.stringify(events));
    else this.clear();
  }
}

/**
 * Exponential backoff after the n-th consecutive failure (1 s doubling up to 5 min), jittered over
 * the upper half so that many visitors do not retry in step; a longer Retry-After from the server wins.
 */
export function retryDelayMs(failures: number, random: number, retryAfterSeconds?: number): number {
  const ceiling = Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_DELAY_MS * 2 ** Math.max(0, failures - 1));
  return Math.max(ceiling / 2 + (random * ceiling) / 2, (retryAfterSeconds ?? 0) * 1000);
}
