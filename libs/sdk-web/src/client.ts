import { Dispatcher, type KeyValueStore, MAX_BATCH_EVENTS, StoredEventQueue, systemClock, Tracker, trackProblem, Transport } from '@foresight/sdk-core';
import { anonymizeProperties } from './anonymize';
import { startAutocapture } from './autocapture';
import { browserPost } from './network';
import { pageUrl } from './page-url';

export interface ForesightOptions {
  /** Address of the Foresight API. Default: the origin foresight.js was loaded from. */
  apiHost?: string;
  /** How often queued events are sent, in milliseconds. Default 5,000. */
  flushIntervalMs?: number;
  /** Clicks, taps, scroll depth, page views, dwell time and hesitation. Default true. */
  autocapture?: boolean;
  /** Hash the values of custom properties (those given to track) on the device. Default false. */
  anonymizeProperties?: boolean;
  /** Capture and store nothing until enableTracking(), for consent-first sites. Default false. */
  startDisabled?: boolean;
}

type ClientOptions = ForesightOptions & { apiHost: string };

const DEFAULT_FLUSH_INTERVAL_MS = 5_000;
const MAX_SCREEN_NAME_LENGTH = 2048;
export const LIBRARY = { name: 'foresight-web', version: '0.1.0' };

/** A page or screen being looked at; its dwell time counts while the document is visible. */
interface View {
  leaveEvent: 'page_leave' | 'screen_leave';
  properties: Record<string, unknown>;
  visibleMs: number;
  visibleSince?: number;
}

export class ForesightClient {
  private readonly queue: StoredEventQueue;
  private readonly tracker: Tracker;
  private readonly dispatcher: Dispatcher;
  private stopAutocapture?: () => void;
  private view?: View;

  constructor(
    token: string,
    private readonly options: ClientOptions,
    store: KeyValueStore,
  ) {
    this.queue = new StoredEventQueue(store);
    this.tracker = new Tracker(store, this.queue, warn, { library: LIBRARY, startDisabled: options.startDisabled });
    const transport = new Transport(`${options.apiHost.replace(/\/+$/, '')}/v1/events`, token, browserPost);
    this.dispatcher = new Dispatcher(this.queue, transport, systemClock, warn);
    setInterval(() => this.flush(), options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS);
    this.watchPageLifecycle();
    if (this.tracker.enabled) this.startCapture();
  }

  track(event: string, properties?: Record<string, unknown>): void {
    const problem = trackProblem(event, properties);
    if (problem) return warn(problem);
    this.record(event, properties, true);
  }

  /** Links this device's anonymous history to a user id the developer chose; nothing else sends one. */
  identify(userId: string): void {
    if (this.tracker.identify(userId)) this.record('identify');
  }

  page(): void {
    this.beginView('page_view', { url: pageUrl(location.href) });
  }

  screen(name: string): void {
    if (typeof name !== 'string' || name.length === 0 || name.length > MAX_SCREEN_NAME_LENGTH) {
      return warn('screen: a screen name is a string of 1 to 2048 characters');
    }
    this.beginView('screen_view', { screen: name });
  }

  /** Sign-out: ends the session and forgets the user; what follows is a new anonymous visitor. */
  reset(): void {
    this.tracker.reset();
  }

  enableTracking(): void {
    if (this.tracker.enable()) this.startCapture();
  }

  /** Stops capture, drops what was not sent and forgets the visitor; only the choice itself is kept. */
  disableTracking(): void {
    this.stopAutocapture?.();
    this.stopAutocapture = undefined;
    this.view = undefined;
    this.tracker.disable();
  }

  private startCapture(): void {
    if (this.options.autocapture !== false) {
      this.stopAutocapture = startAutocapture({ record: (event, properties) => this.record(event, properties), navigated: () => this.page() });
      this.page();
    }
    this.flush();
  }

  /** Delivery and dwell follow the page's visibility, with or without autocapture. */
  private watchPageLifecycle(): void {
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'hidden') {
        this.pauseView();
        this.flush();
      } else if (this.view && this.view.visibleSince === undefined) {
        this.view.visibleSince = Date.now();
      }
    });
    window.addEventListener('pagehide', () => {
      this.endView();
      this.flush();
    });
    // A page restored from the back-forward cache is looked at again.
    window.addEventListener('pageshow', (event) => {
      if (event.persisted && this.tracker.enabled && this.options.autocapture !== false) this.page();
    });
  }

  private beginView(event: 'page_view' | 'screen_view', properties: Record<string, unknown>): void {
    if (!this.tracker.enabled) return;
    this.endView();
    this.record(event, properties);
    this.view = {
      leaveEvent: event === 'page_view' ? 'page_leave' : 'screen_leave',
      properties,
      visibleMs: 0,
      visibleSince: document.visibilityState === 'hidden' ? undefined : Date.now(),
    };
  }

  /** Dwell time is reported when the view ends: navigation, another screen, or the page going away. */
  private endView(): void {
    this.pauseView();
    const view = this.view;
    this.view = undefined;
    if (view) this.record(view.leaveEvent, { ...view.properties, dwellMs: view.visibleMs });
  }

  private pauseView(): void {
    if (this.view?.visibleSince === undefined) return;
    this.view.visibleMs += Date.now() - this.view.visibleSince;
    this.view.visibleSince = undefined;
  }

  /** `custom`: properties the developer gave (hashed when anonymizeProperties is on), not ones the SDK measured. */
  private record(event: string, properties?: Record<string, unknown>, custom = false): void {
    if (!this.tracker.enabled) return;
    const at = Date.now();
    const url = pageUrl(location.href);
    if (!(custom && properties && this.options.anonymizeProperties)) return this.enqueue(event, properties, at, url);
    const subtle = globalThis.crypto?.subtle;
    // Without WebCrypto (plain-http pages) values cannot be hashed, so they are not sent at all.
    if (!subtle) return this.enqueue(event, undefined, at, url);
    anonymizeProperties(properties, subtle).then(
      (hashed) => this.enqueue(event, hashed, at, url),
      () => this.enqueue(event, undefined, at, url),
    );
  }

  private enqueue(event: string, properties: Record<string, unknown> | undefined, at: number, url: string): void {
    // Consent may have been withdrawn while the properties were being hashed: the tracker checks again.
    this.tracker.enqueue(event, properties, at, { page: { url } });
    if (this.queue.size >= MAX_BATCH_EVENTS) this.flush();
  }

  private flush(): void {
    if (this.tracker.enabled) void this.dispatcher.flush();
  }
}

function warn(message: string): void {
  console.warn(`Foresight: ${message}`);
}
