import { Dispatcher, type HttpPost, type Library, StoredEventQueue, systemClock, Tracker, trackProblem, Transport } from '@foresight/sdk-core';
import type { PersistentStore } from './persistent-store';

/** What the client needs of React Native's AppState. */
export interface AppStateLike {
  currentState: string | null;
  addEventListener(type: 'change', listener: (state: string) => void): { remove(): void };
}

export interface ClientOptions {
  /** Address of the Foresight API, e.g. https://foresight.example.com */
  host: string;
  /** How often queued events are sent while the app is in the foreground, in ms. Default 10,000. */
  flushIntervalMs?: number;
  /** Capture and store nothing until enableTracking(), for consent-first apps. Default false. */
  startDisabled?: boolean;
  /** Unsent events kept across launches at most; the oldest go first. Default 1,000. */
  maxQueueSize?: number;
}

export interface Platform {
  store: PersistentStore;
  appState: AppStateLike;
  post: HttpPost;
  library: Library;
  warn: (message: string) => void;
}

/** The screen being looked at, for its dwell time; `visibleSince` is unset while the app is in the background. */
interface View {
  name: string;
  visibleSince?: number;
}

const DEFAULT_FLUSH_INTERVAL_MS = 10_000;
const MAX_SCREEN_NAME_LENGTH = 2048;
const BATCH_EVENTS = 50;

/**
 * The React Native client: the core's tracker and dispatcher over a persistent queue, sending when
 * the app goes to the background (the last moment it surely runs) and on an interval in the
 * foreground. Screens report their dwell time when left.
 */
export class ReactNativeClient {
  private readonly queue: StoredEventQueue;
  private readonly tracker: Tracker;
  private readonly dispatcher: Dispatcher;
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly appStateSubscription: { remove(): void };
  private view?: View;

  constructor(
    token: string,
    options: ClientOptions,
    private readonly platform: Platform,
  ) {
    this.queue = new StoredEventQueue(platform.store, { capacity: options.maxQueueSize ?? 1_000, batchEvents: BATCH_EVENTS });
    this.tracker = new Tracker(platform.store, this.queue, platform.warn, { library: platform.library, startDisabled: options.startDisabled });
    const transport = new Transport(`${options.host.replace(/\/+$/, '')}/v1/events`, token, platform.post);
    this.dispatcher = new Dispatcher(this.queue, transport, systemClock, platform.warn);
    this.timer = setInterval(() => void this.flush(), options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS);
    this.appStateSubscription = platform.appState.addEventListener('change', (state) => this.appStateChanged(state));
    // Events queued in an earlier launch go as soon as the app runs again.
    void this.flush();
  }

  track(event: string, properties?: Record<string, unknown>): void {
    const problem = trackProblem(event, properties);
    if (problem) return this.platform.warn(problem);
    this.record(event, properties);
  }

  identify(userId: string): void {
    if (this.tracker.identify(userId)) this.record('identify');
  }

  /** A screen came into view; the previous one is reported left, with its dwell time. */
  screen(name: string, properties?: Record<string, unknown>): void {
    if (typeof name !== 'string' || name.length === 0 || name.length > MAX_SCREEN_NAME_LENGTH) {
      return this.platform.warn('screen: a screen name is a string of 1 to 2048 characters');
    }
    if (!this.tracker.enabled) return;
    this.leaveScreen();
    this.record('screen_view', { ...properties, screen: name });
    this.view = { name, visibleSince: Date.now() };
  }

  reset(): void {
    this.view = undefined;
    this.tracker.reset();
  }

  enableTracking(): void {
    this.tracker.enable();
  }

  /** Stops tracking, drops what was not sent and forgets the user; the choice itself is kept across launches. */
  disableTracking(): void {
    this.view = undefined;
    this.tracker.disable();
  }

  get trackingEnabled(): boolean {
    return this.tracker.enabled;
  }

  /** Sends what is queued (unless backing off after a failure); resolves when done and written to storage. */
  async flush(): Promise<void> {
    if (this.tracker.enabled) await this.dispatcher.flush();
    await this.platform.store.written();
  }

  /** Stops the timer and the AppState listener; resolves once every change is in storage. */
  close(): Promise<void> {
    clearInterval(this.timer);
    this.appStateSubscription.remove();
    return this.platform.store.written();
  }

  private appStateChanged(state: string): void {
    if (state === 'active') {
      if (this.view) this.view.visibleSince = Date.now();
      return;
    }
    // 'background' (or iOS's 'inactive' on the way there): the dwell so far is reported, and the queue goes now.
    const view = this.view;
    if (view) {
      this.leaveScreen();
      this.view = { name: view.name };
    }
    void this.flush();
  }

  /** Reports the dwell time of the visible screen, if any. */
  private leaveScreen(): void {
    const view = this.view;
    this.view = undefined;
    if (view?.visibleSince !== undefined) this.record('screen_leave', { screen: view.name, dwellMs: Math.max(0, Date.now() - view.visibleSince) });
  }

  private record(event: string, properties?: Record<string, unknown>): void {
    this.tracker.enqueue(event, properties, Date.now(), this.view ? { screen: { name: this.view.name } } : {});
    if (this.queue.size >= BATCH_EVENTS) void this.flush();
  }
}
