import { setTimeout as sleep } from 'node:timers/promises';
import {
  buildEvent,
  Dispatcher,
  eventBytes,
  type HttpPost,
  MAX_EVENT_BYTES,
  MemoryEventQueue,
  randomId,
  systemClock,
  trackProblem,
  Transport,
} from '@foresight/sdk-core';
import { createApiClient, type ForesightApi } from './api-client';
import type { ConnectionOptions } from './http';
import { LIBRARY } from './library';

export interface ForesightOptions extends ConnectionOptions {
  /** Queued events that start a send at once. Default 100 (the API takes up to 1,000 per request). */
  flushAt?: number;
  /** How often queued events are sent, in milliseconds. Default 10,000. */
  flushIntervalMs?: number;
  /** Unsent events kept at most (the oldest go first, with a warning). Default 10,000. */
  maxQueueSize?: number;
  /** Longest wait of flush() and shutdown() for the API to take everything. Default 30,000. */
  flushTimeoutMs?: number;
  /** Flush on SIGTERM, SIGINT and when the event loop empties. Default true. */
  handleSignals?: boolean;
  /** Where warnings go (events the API refused, events left unsent). Default console. */
  logger?: { warn(message: string): void };
}

/** An event from a backend: who did it (`userId`, or `anonymousId`) and what. */
export interface EventMessage {
  event: string;
  userId?: string;
  anonymousId?: string;
  properties?: Record<string, unknown>;
  /** When it happened. Default: now. */
  timestamp?: Date | string;
  /** Idempotency key: the API stores an event once per messageId. Default: a random id. */
  messageId?: string;
  sessionId?: string;
  context?: Record<string, unknown>;
}

export type IdentifyMessage = Omit<EventMessage, 'event' | 'properties'> & { userId: string; traits?: Record<string, unknown> };
export type PageMessage = Omit<EventMessage, 'event'> & { url?: string; name?: string };
export type ScreenMessage = Omit<EventMessage, 'event'> & { name: string };

const EXIT_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * The server-side event client: track() queues, batches go out in the background, one request at
 * a time, retried with backoff and jitter (at least the server's Retry-After) after a 429, a 5xx or
 * a lost connection; every event keeps its messageId through retries, so it is stored once.
 * `api` is the typed client for everything else the API does.
 */
export class Foresight {
  readonly api: ForesightApi;
  private readonly queue: MemoryEventQueue;
  private readonly dispatcher: Dispatcher;
  private readonly flushAt: number;
  private readonly maxQueueSize: number;
  private readonly flushTimeoutMs: number;
  private readonly logger: { warn(message: string): void };
  private readonly timer: NodeJS.Timeout;
  private readonly signalListeners = new Map<NodeJS.Signals, () => void>();
  private readonly beforeExit = () => void this.shutdown();
  private stopped?: Promise<void>;

  static init(token: string, options: ForesightOptions): Foresight {
    return new Foresight(token, options);
  }

  constructor(token: string, options: ForesightOptions) {
    this.api = createApiClient({ ...options, token });
    this.logger = options.logger ?? console;
    this.flushAt = options.flushAt ?? 100;
    this.flushTimeoutMs = options.flushTimeoutMs ?? 30_000;
    this.maxQueueSize = options.maxQueueSize ?? 10_000;
    this.queue = new MemoryEventQueue({ capacity: this.maxQueueSize, batchEvents: Math.min(Math.max(this.flushAt, 1), 1_000) });
    const endpoint = `${options.host.replace(/\/+$/, '')}/v1/events`;
    const transport = new Transport(endpoint, token, nodePost(options.timeoutMs ?? 30_000));
    this.dispatcher = new Dispatcher(this.queue, transport, systemClock, (message) => this.warn(message));
    this.timer = setInterval(() => void this.dispatcher.flush(), options.flushIntervalMs ?? 10_000).unref();
    if (options.handleSignals ?? true) this.handleExit();
  }

  track(message: EventMessage): void {
    const problem = trackProblem(message?.event, message?.properties);
    if (problem) throw new TypeError(`Foresight ${problem}`);
    this.enqueue(message);
  }

  identify({ traits, ...message }: IdentifyMessage): void {
    if (typeof message.userId !== 'string' || message.userId.length === 0) throw new TypeError('Foresight identify: userId is required');
    this.enqueue({ ...message, event: 'identify', properties: traits });
  }

  page({ url, name, properties, ...message }: PageMessage): void {
    this.enqueue({ ...message, event: 'page_view', properties: { ...properties, ...(url === undefined ? {} : { url }), ...(name === undefined ? {} : { name }) } });
  }

  screen({ name, properties, ...message }: ScreenMessage): void {
    if (typeof name !== 'string' || name.length === 0) throw new TypeError('Foresight screen: name is required');
    this.enqueue({ ...message, event: 'screen_view', properties: { ...properties, screen: name } });
  }

  /** Sends everything queued, waiting out retries, for up to flushTimeoutMs; then warns about what is left. */
  async flush(): Promise<void> {
    const deadline = Date.now() + this.flushTimeoutMs;
    while (this.queue.size > 0) {
      await this.dispatcher.flush();
      const wait = this.dispatcher.retryInMs();
      if (this.queue.size === 0) return;
      if (Date.now() + wait > deadline) return this.warn(`${this.queue.size} event(s) not yet accepted by the API after ${this.flushTimeoutMs} ms; still queued`);
      await sleep(wait);
    }
  }

  /** Flushes, then stops: the timer and the exit handlers go, later events are refused. Safe to call twice. */
  shutdown(): Promise<void> {
    this.stopped ??= (async () => {
      clearInterval(this.timer);
      await this.flush();
      this.releaseExit();
    })();
    return this.stopped;
  }

  /** Unsent events. */
  get pending(): number {
    return this.queue.size;
  }

  private enqueue(message: EventMessage): void {
    if (this.stopped) throw new Error('Foresight: this client was shut down');
    const { event, userId, anonymousId, properties, timestamp, messageId, sessionId, context } = message;
    if (!userId && !anonymousId) throw new TypeError(`Foresight ${event}: userId or anonymousId is required`);
    const at = timestamp === undefined ? Date.now() : new Date(timestamp).getTime();
    if (Number.isNaN(at)) throw new TypeError(`Foresight ${event}: timestamp is not a date`);
    const built = buildEvent({
      event,
      properties,
      at,
      sessionId,
      messageId: messageId ?? randomId(),
      identity: { userId, anonymousId },
      context: { ...context, library: LIBRARY },
    });
    if (eventBytes(built) > MAX_EVENT_BYTES) throw new RangeError(`Foresight ${event}: an event is at most ${MAX_EVENT_BYTES} bytes as JSON`);
    if (this.queue.size >= this.maxQueueSize) this.warn('the queue is full (the API is unreachable?): the oldest event was dropped');
    this.queue.add(built);
    if (this.queue.size >= this.flushAt) void this.dispatcher.flush();
  }

  /**
   * On SIGTERM or SIGINT the queue is flushed first; then, unless the application listens to that
   * signal itself, the signal is raised again so the process ends as it would have without us.
   */
  private handleExit(): void {
    for (const signal of EXIT_SIGNALS) {
      const listener = () => {
        void this.shutdown().then(() => {
          if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
        });
      };
      this.signalListeners.set(signal, listener);
      process.once(signal, listener);
    }
    process.once('beforeExit', this.beforeExit);
  }

  private releaseExit(): void {
    for (const [signal, listener] of this.signalListeners) process.removeListener(signal, listener);
    process.removeListener('beforeExit', this.beforeExit);
  }

  private warn(message: string): void {
    this.logger.warn(`Foresight: ${message}`);
  }
}

/** Node's fetch, the body read whole (the connection goes back to the pool) and a timeout per request. */
function nodePost(timeoutMs: number): HttpPost {
  return async (url, body, headers) => {
    const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) });
    const text = await response.text();
    return { status: response.status, headers: response.headers, json: async () => JSON.parse(text) as unknown };
  };
}
