import { type EventQueue, MAX_BATCH_EVENTS, MAX_QUEUED_EVENTS, MemoryEventQueue, type QueueLimits, retryDelayMs, StoredEventQueue } from './event-queue';
import type { SdkEvent } from './payload';
import { memoryStore } from './storage';

const event = (n: number): SdkEvent => ({
  event: 'click',
  messageId: `m${n}`,
  timestamp: new Date(n).toISOString(),
  sessionId: 's1',
  anonymousId: 'a1',
  context: {},
});
const ids = (events: SdkEvent[]) => events.map((e) => e.messageId);

describe.each([
  ['StoredEventQueue', (limits?: Partial<QueueLimits>): EventQueue => new StoredEventQueue(memoryStore(), limits)],
  ['MemoryEventQueue', (limits?: Partial<QueueLimits>): EventQueue => new MemoryEventQueue(limits)],
])('%s', (_name, createQueue) => {
  it('keeps the newest events when full, dropping the oldest', () => {
    const queue = createQueue({ capacity: 3 });
    for (let n = 1; n <= 5; n++) queue.add(event(n));
    expect(queue.size).toBe(3);
    expect(ids(queue.peek())).toEqual(['m3', 'm4', 'm5']);
  });

  it('is bounded by default and hands out one batch at a time, oldest first', () => {
    const queue = createQueue();
    for (let n = 1; n <= MAX_QUEUED_EVENTS + 20; n++) queue.add(event(n));
    expect(queue.size).toBe(MAX_QUEUED_EVENTS);
    const batch = queue.peek();
    expect(batch).toHaveLength(MAX_BATCH_EVENTS);
    expect(batch[0].messageId).toBe('m21');
  });

  it('removes exactly the sent events, even when more arrived meanwhile', () => {
    const queue = createQueue({ batchEvents: 2 });
    [1, 2, 3].forEach((n) => queue.add(event(n)));
    const sent = queue.peek();
    queue.add(event(4));
    queue.remove(sent);
    expect(ids(queue.peek())).toEqual(['m3', 'm4']);
  });

  it('cuts a batch before it outgrows one request body, however many events are allowed', () => {
    const queue = createQueue({ batchEvents: 1_000, capacity: 1_000 });
    const large = (n: number): SdkEvent => ({ ...event(n), properties: { text: 'x'.repeat(30_000) } });
    for (let n = 1; n <= 40; n++) queue.add(large(n));
    const batch = queue.peek();
    expect(batch.length).toBeGreaterThan(1);
    expect(batch.length).toBeLessThan(40);
    expect(new TextEncoder().encode(JSON.stringify(batch)).byteLength).toBeLessThan(1024 * 1024);
  });
});

describe('StoredEventQueue in storage', () => {
  it('lives in storage, so another page (or tab) of the site sees it, and clear() leaves nothing behind', () => {
    const store = memoryStore();
    new StoredEventQueue(store).add(event(1));
    const reopened = new StoredEventQueue(store);
    expect(ids(reopened.peek())).toEqual(['m1']);
    reopened.clear();
    expect(store.get('queue')).toBeNull();
  });

  it('treats unreadable storage as an empty queue', () => {
    const store = memoryStore();
    store.set('queue', '{"broken"');
    const queue = new StoredEventQueue(store);
    expect(queue.size).toBe(0);
    queue.add(event(1));
    expect(queue.size).toBe(1);
  });
});

describe('retryDelayMs', () => {
  it('doubles from about a second, jittered within the upper half of each step', () => {
    expect(retryDelayMs(1, 0)).toBe(500);
    expect(retryDelayMs(1, 1)).toBe(1_000);
    expect(retryDelayMs(2, 0)).toBe(1_000);
    expect(retryDelayMs(4, 0.5)).toBe(6_000);
  });

  it('stops growing at five minutes', () => {
    expect(retryDelayMs(30, 1)).toBe(300_000);
    expect(retryDelayMs(30, 0)).toBe(150_000);
  });

  it("waits at least the server's Retry-After", () => {
    expect(retryDelayMs(1, 0, 60)).toBe(60_000);
    expect(retryDelayMs(12, 1, 1)).toBe(300_000);
  });
});
