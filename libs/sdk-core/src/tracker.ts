import type { EventQueue } from './event-queue';
import { randomId } from './ids';
import { buildEvent, eventBytes, MAX_EVENT_BYTES, type SdkEvent } from './payload';
import { parseSession, sessionDurationMs, type SessionState, touchSession } from './session';
import type { KeyValueStore } from './storage';

const MAX_USER_ID_LENGTH = 255;
/** What a device SDK keeps in storage; everything but the consent choice goes when tracking is disabled. */
const KEYS = { consent: 'consent', anonymousId: 'anonymousId', userId: 'userId', session: 'session' } as const;
const VISITOR_KEYS = [KEYS.userId, KEYS.anonymousId, KEYS.session];

export interface Library {
  name: string;
  version: string;
}

export interface TrackerOptions {
  /** Sent in every event's context, so the server can tell the SDKs apart. */
  library: Library;
  /** Capture and store nothing until enableTracking(), for consent-first apps. Default false. */
  startDisabled?: boolean;
}

/**
 * The device side of tracking, shared by the browser and React Native SDKs: consent (persisted),
 * the anonymous id, the identified user, sessions cut after 30 minutes of inactivity, and events
 * built and queued with all of them.
 */
export class Tracker {
  private consented: boolean;

  constructor(
    private readonly store: KeyValueStore,
    private readonly queue: EventQueue,
    private readonly warn: (message: string) => void,
    private readonly options: TrackerOptions,
  ) {
    const consent = store.get(KEYS.consent);
    this.consented = consent === 'granted' || (consent !== 'denied' && !options.startDisabled);
  }

  get enabled(): boolean {
    return this.consented;
  }

  /** True when tracking was off until now. */
  enable(): boolean {
    this.store.set(KEYS.consent, 'granted');
    if (this.consented) return false;
    this.consented = true;
    return true;
  }

  /** Drops what was not sent and forgets the visitor; only the choice itself is kept. */
  disable(): void {
    this.consented = false;
    this.queue.clear();
    for (const key of VISITOR_KEYS) this.store.remove(key);
    this.store.set(KEYS.consent, 'denied');
  }

  /** Links this device's anonymous history to a user id the developer chose; nothing else sends one. */
  identify(userId: unknown): boolean {
    if (typeof userId !== 'string' || userId.length === 0 || userId.length > MAX_USER_ID_LENGTH) {
      this.warn('identify: a user id is a string of 1 to 255 characters');
      return false;
    }
    if (!this.consented) return false;
    this.store.set(KEYS.userId, userId);
    return true;
  }

  /** Sign-out: ends the session and forgets the user; what follows is a new anonymous visitor. */
  reset(): void {
    if (!this.consented) return;
    const session = parseSession(this.store.get(KEYS.session));
    if (session) this.queue.add(this.sessionEnd(session));
    for (const key of VISITOR_KEYS) this.store.remove(key);
  }

  /** Queues an event that happened at `at`, in the current session (starting one if it timed out). */
  enqueue(event: string, properties: Record<string, unknown> | undefined, at: number, platformContext: Record<string, unknown> = {}): void {
    if (!this.consented) return;
    const { current, ended } = touchSession(parseSession(this.store.get(KEYS.session)), at, randomId);
    this.store.set(KEYS.session, JSON.stringify(current));
    if (ended) this.queue.add(this.sessionEnd(ended));
    const built = this.build(event, properties, at, current.id, platformContext);
    if (eventBytes(built) > MAX_EVENT_BYTES) return this.warn(`track: "${event}" is over ${MAX_EVENT_BYTES} bytes and was not queued`);
    this.queue.add(built);
  }

  /** Reported once the session is known to be over: at the first activity after the timeout, or on reset(). */
  private sessionEnd(session: SessionState): SdkEvent {
    return this.build('session_end', { durationMs: sessionDurationMs(session) }, session.lastActivityAt, session.id);
  }

  private build(event: string, properties: Record<string, unknown> | undefined, at: number, sessionId: string, platformContext: Record<string, unknown> = {}): SdkEvent {
    const context = { library: this.options.library, ...platformContext };
    return buildEvent({ event, properties, at, sessionId, messageId: randomId(), identity: this.identity(), context });
  }

  private identity(): { anonymousId: string; userId?: string } {
    let anonymousId = this.store.get(KEYS.anonymousId);
    if (!anonymousId) {
      anonymousId = randomId();
      this.store.set(KEYS.anonymousId, anonymousId);
    }
    return { anonymousId, userId: this.store.get(KEYS.userId) ?? undefined };
  }
}
