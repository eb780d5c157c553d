import { eventBytes, MAX_REQUEST_BYTES, type SdkEvent } from './payload';
import { type KeyValueStore, parseJson } from './storage';

/** Unsent events kept at most by default; beyond it the oldest go first (an offline device must not fill the disk). */
export const MAX_QUEUED_EVENTS = 500;
/** Events per request by default: small enough for a browser's keepalive body (64 KiB), far below the server's 1,000. */
export const MAX_BATCH_EVENTS = 50;
const FIRST_RETRY_DELAY_MS = 1_000;
const MAX_RETRY_DELAY_MS = 5 * 60_000;
const QUEUE_KEY = 'queue';

/** Unsent events, oldest first, each removed only once the server has it. */
export interface EventQueue {
  add(event: SdkEvent): void;
  /** The oldest events, up to one batch. */
  peek(): SdkEvent[];
  remove(events: readonly SdkEvent[]): void;
  clear(): void;
  readonly size: number;
}

export interface QueueLimits {
  capacity: number;
  batchEvents: number;
}

const DEFAULT_LIMITS: QueueLimits = { capacity: MAX_QUEUED_EVENTS, batchEvents: MAX_BATCH_EVENTS };

/**
 * A queue in storage, so that a closed tab, a killed app or a network outage loses nothing: sent on
 * the next launch. Read and written whole on each change, so the tabs of one site share it; a batch
 * two tabs both send is stored once, by messageId.
 */
export class StoredEventQueue implements EventQueue {
  private readonly limits: QueueLimits;

  constructor(
    private readonly store: KeyValueStore,
    limits: Partial<QueueLimits> = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  add(event: SdkEvent): void {
    this.save([...this.all(), event].slice(-this.limits.capacity));
  }

  peek(): SdkEvent[] {
    return firstBatch(this.all(), this.limits.batchEvents);
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

/** A queue in memory, for a server process: adding is constant time however many events wait. */
export class MemoryEventQueue implements EventQueue {
  private events: SdkEvent[] = [];
  private readonly limits: QueueLimits;

  constructor(limits: Partial<QueueLimits> = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  add(event: SdkEvent): void {
    this.events.push(event);
    if (this.events.length > this.limits.capacity) this.events.shift();
  }

  peek(): SdkEvent[] {
    return firstBatch(this.events, this.limits.batchEvents);
  }

  remove(events: readonly SdkEvent[]): void {
    const removed = new Set(events.map((event) => event.messageId));
    this.events = this.events.filter((event) => !removed.has(event.messageId));
  }

  clear(): void {
    this.events = [];
  }

  get size(): number {
    return this.events.length;
  }
}

/** The oldest events that fit one request: at most `maxEvents`, and under the server's body limit. */
function firstBatch(events: readonly SdkEvent[], maxEvents: number): SdkEvent[] {
  const batch: SdkEvent[] = [];
  let bytes = 2;
  for (const event of events.slice(0, maxEvents)) {
    bytes += eventBytes(event) + 1;
    if (batch.length > 0 && bytes > MAX_REQUEST_BYTES) break;
    batch.push(event);
  }
  return batch;
}

/**
 * Exponential backoff after the n-th consecutive failure (1 s doubling up to 5 min), jittered over
 * the upper half so that many clients do not retry in step; a longer Retry-After from the server wins.
 */
export function retryDelayMs(failures: number, random: number, retryAfterSeconds?: number): number {
  const ceiling = Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_DELAY_MS * 2 ** Math.max(0, failures - 1));
  return Math.max(ceiling / 2 + (random * ceiling) / 2, (retryAfterSeconds ?? 0) * 1000);
}
