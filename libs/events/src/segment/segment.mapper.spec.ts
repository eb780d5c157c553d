import { eventInstant } from '../event.schema';
import { validateEachEvent, validateEvents } from '../ingest/ingest.service';
import { segmentToEvents } from './segment.mapper';

describe('segmentToEvents', () => {
  it('maps track, page, screen and identify in a batch', async () => {
    const events = await validateEvents(
      segmentToEvents('batch', {
        batch: [
          { type: 'track', event: 'checkout_start', userId: 'u1', properties: { plan: 'pro' }, messageId: 'm1', timestamp: '2026-11-20T10:00:00.000Z' },
          { type: 'page', name: 'Pricing', anonymousId: 'a1', properties: { url: 'https://shop.test/pricing' } },
          { type: 'screen', name: 'Cart', userId: 'u1' },
          { type: 'identify', userId: 'u1', anonymousId: 'a1', traits: { email: 'jane@example.com' } },
        ],
      }),
    );
    expect(events.map((e) => e.event)).toEqual(['checkout_start', 'page_view', 'screen_view', 'identify']);
    expect(events[0]).toMatchObject({ userId: 'u1', messageId: 'm1', properties: { plan: 'pro' } });
    expect(events[1].properties).toEqual({ url: 'https://shop.test/pricing' });
    expect(events[2].properties).toEqual({ screen: 'Cart' });
    expect(JSON.stringify(events[3])).not.toContain('jane@example.com');
  });

  it('uses the page name when there is no url', async () => {
    const [page] = await validateEvents(segmentToEvents('page', { name: 'Home', userId: 'u' }));
    expect(page.properties).toEqual({ screen: 'Home' });
  });

  it('reads properties: null as {} and a numeric context.sessionId as a string', async () => {
    const [track] = await validateEvents(segmentToEvents('track', { event: 'opened', userId: 'u', properties: null, context: { sessionId: 1732270000123 } }));
    expect(track).toMatchObject({ properties: {}, sessionId: '1732270000123' });
  });

  it('refuses a body that is no batch at all', async () => {
    expect(() => segmentToEvents('batch', { batch: [] })).toThrow(/batch/);
    expect(() => segmentToEvents('track', [])).toThrow(/object/);
  });

  it('skips and counts messages it cannot store, keeping the valid ones: unknown types, NUL, deep nesting, a depth Postgres refuses', async () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 5_000; i++) deep = { deep };
    const { events, rejected } = await validateEachEvent(
      segmentToEvents('batch', {
        batch: [
          { type: 'track', event: 'kept_1', userId: 'u1' },
          { type: 'unknown', event: 'x', userId: 'u1' },
          'not a message',
          { type: 'track', event: 'x', userId: 'u\u0000' },
          { type: 'track', event: 'x', userId: 'u1', context: deep },
          { type: 'track', event: 'scroll', userId: 'u1', properties: { depth: 1e-320 } },
          { type: 'track', event: 'x', userId: 'u1', timestamp: '0000-01-01T00:00:00Z' },
          { type: 'track', event: 'jane@example.com', userId: 'u1' },
          { type: 'screen', name: 'kept_2', userId: 'u1' },
        ],
      }),
    );
    expect(events.map((e) => e.event)).toEqual(['kept_1', 'screen_view']);
    expect(rejected).toBe(7);
  });

  it('reads originalTimestamp when timestamp is absent, with offsets, no zone and Dart microseconds', async () => {
    const events = await validateEvents(
      segmentToEvents('batch', {
        batch: [
          { type: 'track', event: 'a', userId: 'u', originalTimestamp: '2026-11-20T10:00:00.123Z' },
          { type: 'track', event: 'b', userId: 'u', timestamp: '2026-11-20T11:00:00.000+01:00' },
          { type: 'track', event: 'c', userId: 'u', timestamp: '2026-11-20T10:00:00' },
          { type: 'track', event: 'd', userId: 'u', timestamp: '2026-11-20T10:00:00.123456Z' },
        ],
      }),
    );
    expect(events.map((e) => eventInstant(e.timestamp!))).toEqual([
      Date.parse('2026-11-20T10:00:00.123Z'),
      Date.parse('2026-11-20T10:00:00.000Z'),
      Date.parse('2026-11-20T10:00:00.000Z'),
      Date.parse('2026-11-20T10:00:00.123Z'),
    ]);
  });

  it("corrects the device clock with sentAt: timestamp + (receivedAt − sentAt)", async () => {
    const receivedAt = Date.parse('2026-11-20T12:00:00.000Z');
    // The device clock is 1 hour behind: it sent at 11:00 by its clock, the event happened 5 minutes earlier.
    const [fromBatch, fromMessage] = await validateEvents(
      segmentToEvents(
        'batch',
        {
          sentAt: '2026-11-20T11:00:00.000Z',
          batch: [
            { type: 'track', event: 'a', userId: 'u', timestamp: '2026-11-20T10:55:00.000Z' },
            { type: 'track', event: 'b', userId: 'u', originalTimestamp: '2026-11-20T10:55:00.000Z', sentAt: '2026-11-20T12:00:00.000Z' },
          ],
        },
        receivedAt,
      ),
    );
    expect(fromBatch.timestamp).toBe('2026-11-20T11:55:00.000Z');
    expect(fromMessage.timestamp).toBe('2026-11-20T10:55:00.000Z');
  });

  it('names a screen from name, properties.name or event; maps alias and group', async () => {
    const events = await validateEvents(
      segmentToEvents('batch', {
        batch: [
          { type: 'screen', userId: 'u', name: 'Home' },
          { type: 'screen', userId: 'u', event: 'Cart', properties: { name: 'Cart' } },
          { type: 'screen', userId: 'u', event: 'Checkout', properties: null },
          { type: 'alias', userId: 'u', previousId: 'anon-1' },
          { type: 'group', userId: 'u', groupId: 'acme', traits: { name: 'Acme' } },
        ],
      }),
    );
    expect(events.map((e) => e.properties?.screen)).toEqual(['Home', 'Cart', 'Checkout', undefined, undefined]);
    expect(events[3]).toMatchObject({ event: 'alias', userId: 'u', anonymousId: 'anon-1' });
    expect(events[4]).toMatchObject({ event: 'group', properties: { groupId: 'acme' } });
    expect(JSON.stringify(events[4])).not.toContain('Acme');
  });
});
