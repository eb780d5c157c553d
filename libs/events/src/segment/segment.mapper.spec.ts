import { validateEvents } from '../ingest/ingest.service';
import { segmentToEvents } from './segment.mapper';

describe('segmentToEvents', () => {
  it('maps track, page, screen and identify in a batch', () => {
    const events = validateEvents(
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

  it('uses the page name when there is no url', () => {
    const [page] = validateEvents(segmentToEvents('page', { name: 'Home', userId: 'u' }));
    expect(page.properties).toEqual({ screen: 'Home' });
  });

  it('refuses unknown message types and empty batches', () => {
    expect(() => segmentToEvents('batch', { batch: [{ type: 'alias', userId: 'u' }] })).toThrow(/type/);
    expect(() => segmentToEvents('batch', { batch: [] })).toThrow(/batch/);
    expect(() => segmentToEvents('track', [])).toThrow(/object/);
  });
});
