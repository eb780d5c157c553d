import { eventsText, type UserWindowRow, windowAsOf } from './user-window';

const row = (overrides: Partial<UserWindowRow> = {}): UserWindowRow => ({
  revision: '7',
  revision_to_keep: '7/1234',
  // Read from 1,000 on, at 5,000: the latest event before then is 4,000.
  first_seen: 100,
  last_seen: 4_000,
  events: JSON.stringify([
    // Kept before string properties existed: no ninth element.
    [2_000, 'click', 's-1', null, null, 300, null, null],
    [4_000, 'screen_view', 's-1', '/pricing', 1_500, null, 0.5, { items: 2 }, { plan: 'pro' }],
    [6_000, 'checkout', null, null, null, null, null, null],
  ]),
  ...overrides,
});

describe('windowAsOf', () => {
  it('answers the events before the end, oldest first, with first and last seen', () => {
    expect(windowAsOf(row(), 1_000, 5_000)).toEqual({
      events: [
        { occurredAt: 2_000, event: 'click', sessionId: 's-1', screen: null, dwellMs: null, hesitationMs: 300, scrollDepth: null, numbers: null, strings: null },
        { occurredAt: 4_000, event: 'screen_view', sessionId: 's-1', screen: '/pricing', dwellMs: 1_500, scrollDepth: 0.5, hesitationMs: null, numbers: { items: 2 }, strings: { plan: 'pro' } },
      ],
      firstSeenAt: 100,
      lastSeenAt: 4_000,
      revision: '7',
    });
  });

  it('counts an event dated after the row was taken once the end passes it', () => {
    const later = windowAsOf(row(), 1_000, 6_001);
    expect(later?.events.map((e) => e.event)).toEqual(['click', 'screen_view', 'checkout']);
    expect(later?.lastSeenAt).toBe(6_000);
  });

  it('answers only the events from the start asked for, a later start than the row\'s', () => {
    expect(windowAsOf(row(), 3_000, 7_000)).toMatchObject({ lastSeenAt: 6_000, firstSeenAt: 100 });
    expect(windowAsOf(row(), 3_000, 7_000)?.events.map((e) => e.event)).toEqual(['screen_view', 'checkout']);
    expect(windowAsOf(row(), 4_500, 5_000)).toMatchObject({ events: [], lastSeenAt: 4_000 });
  });

  it('keeps the latest event before the window as last seen when the window has none', () => {
    expect(windowAsOf(row({ events: '[]', last_seen: 900 }), 1_000, 5_000)).toMatchObject({ events: [], lastSeenAt: 900 });
  });

  it('answers nothing for a user with no event before the end', () => {
    expect(windowAsOf(row({ first_seen: null, last_seen: null, events: '[]' }), 1_000, 5_000)).toBeUndefined();
    expect(windowAsOf(row({ first_seen: 6_000, last_seen: null, events: '[[6000,"click",null,null,null,null,null,null]]' }), 1_000, 5_000)).toBeUndefined();
  });
});

describe('windowAsOf with the events stored since the row was kept', () => {
  // Stored since: everything dated from 3,000 on, read again (the screen_view and checkout kept, and a new scroll).
  const recent = JSON.stringify([
    [4_000, 'screen_view', 's-1', '/pricing', 1_500, null, 0.5, { items: 2 }],
    [4_500, 'scroll', 's-1', null, null, null, 0.9, null],
    [6_000, 'checkout', null, null, null, null, null, null],
  ]);

  it('takes the kept events before recent_from and the recent ones from then on, each once', () => {
    const merged = windowAsOf(row({ recent_from: 3_000, recent }), 1_000, 5_000);
    expect(merged?.events.map((e) => [e.occurredAt, e.event])).toEqual([
      [2_000, 'click'],
      [4_000, 'screen_view'],
      [4_500, 'scroll'],
    ]);
    expect(merged).toMatchObject({ firstSeenAt: 100, lastSeenAt: 4_500, revision: '7' });
    expect(windowAsOf(row({ recent_from: 3_000, recent }), 1_000, 7_000)?.events.map((e) => e.event)).toEqual(['click', 'screen_view', 'scroll', 'checkout']);
  });

  it('drops a kept event from recent_from on that the recent read no longer holds', () => {
    expect(windowAsOf(row({ recent_from: 1_500, recent: '[]' }), 1_000, 7_000)).toMatchObject({ events: [], lastSeenAt: 4_000 });
  });

  it('counts a recent event dated before the first kept one as the first sighting', () => {
    const merged = windowAsOf(row({ first_seen: 2_000, recent_from: 1_000, recent: '[[1200,"signup",null,null,null,null,null,null]]' }), 1_000, 5_000);
    expect(merged).toMatchObject({ firstSeenAt: 1_200, lastSeenAt: 4_000, events: [{ occurredAt: 1_200, event: 'signup' }] });
    expect(windowAsOf(row({ first_seen: null, last_seen: null, events: '[]', recent_from: 0, recent: '[[1200,"signup",null,null,null,null,null,null]]' }), 1_000, 1_100)).toBeUndefined();
  });
});

describe('eventsText', () => {
  it('writes events as the read off the events sends them, so a kept window reads back the same', () => {
    const read = windowAsOf(row(), 1_000, 10_000);
    expect(read).toBeDefined();
    expect(windowAsOf(row({ events: eventsText(read?.events ?? []) }), 1_000, 10_000)).toEqual(read);
    expect((JSON.parse(eventsText(read?.events ?? [])) as unknown[])[1]).toEqual((JSON.parse(row().events) as unknown[])[1]);
  });
});
