import { anonymizeProperties } from './anonymize';
import { startAutocapture } from './autocapture';
import { EventQueue, MAX_BATCH_EVENTS, retryDelayMs } from './event-queue';
import { randomId } from './ids';
import { buildEvent, isPlainObject, isValidEventName, pageUrl, type Identity, type SdkEvent } from './payload';
import { parseSession, sessionDurationMs, touchSession, type SessionState } from './session';
import type { KeyValueStore } from './storage';
import { Transport, type SendOutcome } from './transport';

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
const MAX_USER_ID_LENGTH = 255;
/** What the SDK keeps in storage; everything but the consent choice goes when tracking is disabled. */
const KEYS = { consent: 'consent', anonymousId: 'anonymousId', userId: 'userId', session: 'session' } as const;

/** A page or screen being looked at; its dwell time counts while the document is visible. */
interface View {
  leaveEvent: 'page_leave' | 'screen_leave';
  properties: Record<string, unknown>;
  visibleMs: number;
  visibleSince?: number;
}

export class ForesightClient {
  private readonly queue: EventQueue;
  private readonly transport: Transport;
  private enabled: boolean;
  private stopAutocapture?: () => void;
  private view?: View;
  private sending = false;
  private failures = 0;
  private retryAt = 0;

  constructor(
    token: string,
    private readonly options: ClientOptions,
    private readonly store: KeyValueStore,
  ) {
    this.queue = new EventQueue(store);
    this.transport = new Transport(`${options.apiHost.replace(/\/+$/, '')}/v1/events`, token);
    const consent = store.get(KEYS.consent);
    this.enabled = consent === 'granted' || (consent !== 'denied' && !options.startDisabled);
    setInterval(() => this.flush(), options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS);
    this.watchPageLifecycle();
    if (this.enabled) this.startCapture();
  }

  track(event: string, properties?: Record<string, unknown>): void {
    if (!isValidEventName(event)) return warn('track: an event name is 1 to 128 letters, digits, spaces or _ . : / -');
    if (properties !== undefined && !isPlainObject(properties)) return warn('track: properties must be an object');
    this.record(event, properties, true);
  }

  /** Links this device's anonymous history to a user id the developer chose; nothing else sends one. */
  identify(userId: string): void {
    if (typeof userId !== 'string' || userId.length === 0 || userId.length > MAX_USER_ID_LENGTH) {
      return warn('identify: a user id is a string of 1 to 255 characters');
    }
    if (!this.enabled) return;
    this.store.set(KEYS.userId, userId);
    this.record('identify');
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
    if (!this.enabled) return;
    const session = parseSession(this.store.get(KEYS.session));
    if (session) this.queue.add(this.sessionEnd(session));
    for (const key of [KEYS.userId, KEYS.anonymousId, KEYS.session]) this.store.remove(key);
  }

  enableTracking(): void {
    this.store.set(KEYS.consent, 'granted');
    if (this.enabled) return;
    this.enabled = true;
    this.startCapture();
  }

  /** Stops capture, drops what was not sent and forgets the visitor; only the choice itself is kept. */
  disableTracking(): void {
    this.enabled = false;
    this.stopAutocapture?.();
    this.stopAutocapture = undefined;
    this.view = undefined;
    this.queue.clear();
    for (const key of [KEYS.userId, KEYS.anonymousId, KEYS.session]) this.store.remove(key);
    this.store.set(KEYS.consent, 'denied');
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
      if (event.persisted && this.enabled && this.options.autocapture !== false) this.page();
    });
  }

  private beginView(event: 'page_view' | 'screen_view', properties: Record<string, unknown>): void {
    if (!this.enabled) return;
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
    if (!this.enabled) return;
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
    // Consent may have been withdrawn while the properties were being hashed.
    if (!this.enabled) return;
    const { current, ended } = touchSession(parseSession(this.store.get(KEYS.session)), at, randomId);
    this.store.set(KEYS.session, JSON.stringify(current));
    if (ended) this.queue.add(this.sessionEnd(ended));
    this.queue.add(this.build(event, properties, at, current.id, url));
    if (this.queue.size >= MAX_BATCH_EVENTS) this.flush();
  }

  /** Reported once the session is known to be over: at the first activity after the timeout, or on reset(). */
  private sessionEnd(session: SessionState): SdkEvent {
    return this.build('session_end', { durationMs: sessionDurationMs(session) }, session.lastActivityAt, session.id);
  }

  private build(event: string, properties: Record<string, unknown> | undefined, at: number, sessionId: string, url?: string): SdkEvent {
    return buildEvent({ event, properties, at, sessionId, messageId: randomId(), identity: this.identity(), url });
  }

  private identity(): Identity {
    let anonymousId = this.store.get(KEYS.anonymousId);
    if (!anonymousId) {
      anonymousId = randomId();
      this.store.set(KEYS.anonymousId, anonymousId);
    }
    return { anonymousId, userId: this.store.get(KEYS.userId) ?? undefined };
  }

  /** One request at a time per page, oldest events first, none while backing off after a failure. */
  private flush(): void {
    if (this.sending || !this.enabled || Date.now() < this.retryAt) return;
    const batch = this.queue.peek();
    if (batch.length === 0) return;
    this.sending = true;
    void this.transport.send(batch).then((outcome) => {
      this.sending = false;
      this.settle(batch, outcome);
    });
  }

  private settle(batch: SdkEvent[], outcome: SendOutcome): void {
    if (outcome.kind === 'retry') {
      this.failures++;
      this.retryAt = Date.now() + retryDelayMs(this.failures, Math.random(), outcome.retryAfterSeconds);
      return;
    }
    this.failures = 0;
    if (outcome.kind === 'sent') {
      this.queue.remove(batch);
    } else {
      // When the server named the bad events, only they are dropped; the rest of the batch goes again.
      const named = outcome.indexes.filter((index) => index < batch.length).map((index) => batch[index]);
      const dropped = named.length > 0 ? named : batch;
      this.queue.remove(dropped);
      warn(`the API refused ${dropped.length} event(s) with HTTP ${outcome.status}`);
    }
    this.flush();
  }
}

function warn(message: string): void {
  console.warn(`Foresight: ${message}`);
}
