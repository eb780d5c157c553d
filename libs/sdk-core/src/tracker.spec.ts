import { StoredEventQueue } from './event-queue';
import type { SdkEvent } from './payload';
import { SESSION_TIMEOUT_MS } from './session';
import { type KeyValueStore, memoryStore } from './storage';
import { Tracker } from './tracker';

const LIBRARY = { name: 'foresight-test', version: '1.0.0' };
const T0 = Date.UTC(2026, 10, 22, 9, 0, 0);

function setUp(store: KeyValueStore = memoryStore(), options: { startDisabled?: boolean } = {}) {
  const queue = new StoredEventQueue(store, { capacity: 100, batchEvents: 100 });
  const warnings: string[] = [];
  const tracker = new Tracker(store, queue, (message) => warnings.push(message), { library: LIBRARY, ...options });
  return { store, queue, tracker, warnings, events: (): SdkEvent[] => queue.peek() };
}

describe('Tracker', () => {
  it('puts events of one visit in one session, and reports a session that timed out with its duration', () => {
    const { tracker, events } = setUp();
    tracker.enqueue('open', undefined, T0);
    tracker.enqueue('click', undefined, T0 + 60_000, { page: { url: 'https://shop.test/' } });
    tracker.enqueue('open', undefined, T0 + 60_000 + SESSION_TIMEOUT_MS + 1);
    const [open, click, ended, reopened] = events();
    expect(click.sessionId).toBe(open.sessionId);
    expect(click.context).toEqual({ library: LIBRARY, page: { url: 'https://shop.test/' } });
    expect(ended).toMatchObject({ event: 'session_end', sessionId: open.sessionId, properties: { durationMs: 60_000 } });
    expect(reopened.sessionId).not.toBe(open.sessionId);
    expect(new Set(events().map((event) => event.anonymousId)).size).toBe(1);
  });

  it('adds the user id after identify and starts a new anonymous visitor after reset', () => {
    const { tracker, events, warnings } = setUp();
    tracker.enqueue('open', undefined, T0);
    expect(tracker.identify('')).toBe(false);
    expect(warnings).toEqual(['identify: a user id is a string of 1 to 255 characters']);
    expect(tracker.identify('user-42')).toBe(true);
    tracker.enqueue('buy', undefined, T0 + 1_000);
    tracker.reset();
    tracker.enqueue('open', undefined, T0 + 2_000);
    const [open, buy, ended, after] = events();
    expect(open).not.toHaveProperty('userId');
    expect(buy).toMatchObject({ userId: 'user-42', anonymousId: open.anonymousId });
    expect(ended).toMatchObject({ event: 'session_end', userId: 'user-42' });
    expect(after).not.toHaveProperty('userId');
    expect(after.anonymousId).not.toBe(open.anonymousId);
    expect(after.sessionId).not.toBe(open.sessionId);
  });

  it('stores nothing while disabled, keeps the choice in storage, and forgets the visitor', () => {
    const { store, tracker, queue } = setUp();
    tracker.enqueue('open', undefined, T0);
    tracker.disable();
    tracker.enqueue('hidden', undefined, T0 + 1_000);
    expect(queue.size).toBe(0);
    expect(['anonymousId', 'userId', 'session', 'queue'].map((key) => store.get(key))).toEqual([null, null, null, null]);
    expect(setUp(store).tracker.enabled).toBe(false);
    expect(tracker.enable()).toBe(true);
    expect(tracker.enable()).toBe(false);
    expect(setUp(store, { startDisabled: true }).tracker.enabled).toBe(true);
  });

  it('starts disabled when asked, until enabled', () => {
    const { tracker, queue } = setUp(memoryStore(), { startDisabled: true });
    tracker.enqueue('early', undefined, T0);
    expect(queue.size).toBe(0);
    tracker.enable();
    tracker.enqueue('consented', undefined, T0);
    expect(queue.peek().map((event) => event.event)).toEqual(['consented']);
  });

  it('refuses an event over 32 KiB with a warning rather than queueing what the API would refuse', () => {
    const { tracker, queue, warnings } = setUp();
    tracker.enqueue('huge', { text: 'é'.repeat(17_000) }, T0);
    expect(queue.size).toBe(0);
    expect(warnings[0]).toMatch(/over 32768 bytes/);
  });
});
