import { eventInstant, eventSchema } from './event.schema';

const base = { event: 'click', userId: 'u1' };
const issues = (input: unknown) => {
  const result = eventSchema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('eventSchema', () => {
  it('accepts a minimal event and the behavioral signals', () => {
    expect(issues(base)).toEqual([]);
    expect(issues({ event: 'scroll', anonymousId: 'a1', properties: { depth: 0.75 } })).toEqual([]);
    expect(issues({ ...base, event: 'screen_view', properties: { screen: 'Cart', dwellMs: 1200, hesitationMs: 0 } })).toEqual([]);
    expect(issues({ ...base, timestamp: '2026-01-02T03:04:05+02:00' })).toEqual([]);
  });

  it('names each bad field', () => {
    expect(issues({ userId: 'u' })).toEqual([expect.stringMatching(/^event:/)]);
    expect(issues({ event: 'click' })).toEqual(['userId: userId or anonymousId is required']);
    expect(issues({ ...base, userId: 'x'.repeat(256) })).toEqual([expect.stringMatching(/^userId:/)]);
    expect(issues({ ...base, event: 'bad\u0007name' })).toEqual([expect.stringMatching(/^event:/)]);
    expect(issues({ ...base, properties: [] })).toEqual([expect.stringMatching(/^properties:/)]);
    expect(issues({ ...base, timestamp: 'yesterday' })).toEqual([expect.stringMatching(/^timestamp:/)]);
    expect(issues({ ...base, timestamp: '2026-01-02T03:04:05+0100x' })).toEqual([expect.stringMatching(/^timestamp:/)]);
  });

  it('takes any printable Unicode event name of up to 255 characters', () => {
    for (const event of ['Add to cart!', 'Caméra ouverte', '購入完了', 'checkout 🛒', 'a'.repeat(255)]) expect(issues({ ...base, event })).toEqual([]);
  });

  it('reads a timestamp without a zone as UTC, whatever the zone the server runs in', () => {
    const zone = process.env.TZ;
    process.env.TZ = 'Asia/Tokyo'; // Node applies a changed TZ at once; Date.parse would read local time here
    try {
      expect(eventInstant('2026-01-02T03:04:05')).toBe(Date.UTC(2026, 0, 2, 3, 4, 5));
    } finally {
      process.env.TZ = zone;
    }
    expect(issues({ ...base, timestamp: '2026-01-02T03:04:05' })).toEqual([]);
    expect(eventInstant('2026-01-02T03:04:05')).toBe(Date.parse('2026-01-02T03:04:05Z'));
    expect(eventInstant('2026-01-02T03:04:05.250')).toBe(Date.parse('2026-01-02T03:04:05.250Z'));
    expect(eventInstant('2026-01-02T03:04:05+01:00')).toBe(Date.parse('2026-01-02T02:04:05Z'));
  });

  it('refuses timestamps more than 24 hours ahead', () => {
    const ahead = (hours: number) => new Date(Date.now() + hours * 3600_000).toISOString();
    expect(issues({ ...base, timestamp: ahead(23) })).toEqual([]);
    expect(issues({ ...base, timestamp: ahead(25) })).toEqual(['timestamp: more than 24 hours in the future']);
  });

  it('checks behavioral signal types', () => {
    expect(issues({ ...base, event: 'scroll', properties: { depth: 3 } })).toEqual(['properties.depth: scroll depth is a number from 0 to 1']);
    expect(issues({ ...base, event: 'scroll' })).toEqual(['properties.depth: scroll depth is a number from 0 to 1']);
    expect(issues({ ...base, event: 'page_view', properties: {} })).toEqual([expect.stringMatching(/^properties.url:/)]);
    expect(issues({ ...base, properties: { dwellMs: -1, hesitationMs: 'slow' } })).toHaveLength(2);
  });

  it('refuses what Postgres cannot store or what is not text: control characters, unpaired surrogates, a depth a real cannot hold', () => {
    for (const field of ['userId', 'anonymousId', 'sessionId', 'messageId']) {
      for (const bad of ['a\u0000b', 'a\u001bb', 'a\u0085b', 'a\ud800b']) {
        expect(issues({ ...base, [field]: bad })).toEqual([expect.stringMatching(new RegExp(`^${field}: no control characters`))]);
      }
    }
    expect(issues({ ...base, userId: 'jöhn 👋' })).toEqual([]);
    expect(issues({ ...base, event: 'scroll', properties: { depth: 1e-320 } })).toEqual([expect.stringMatching(/^properties.depth: scroll depth is 0 or at least 1e-45/)]);
    expect(issues({ ...base, event: 'scroll', properties: { depth: 1e-45 } })).toEqual([]);
    expect(issues({ ...base, event: 'scroll', properties: { depth: 0 } })).toEqual([]);
  });

  it('refuses dates that do not exist or precede 1970', () => {
    expect(issues({ ...base, timestamp: '2026-02-30T00:00:00Z' })).toEqual([expect.stringMatching(/^timestamp:/)]);
    expect(issues({ ...base, timestamp: '0000-01-01T00:00:00Z' })).toEqual(['timestamp: before 1970']);
    expect(issues({ ...base, timestamp: '1969-12-31T23:59:59Z' })).toEqual(['timestamp: before 1970']);
    expect(issues({ ...base, timestamp: '1970-01-01T00:00:00Z' })).toEqual([]);
  });

  it('checks lengths before any pattern, and stops there', () => {
    expect(issues({ ...base, event: 'a'.repeat(256) })).toEqual([expect.stringMatching(/^event: Too big/)]);
    expect(issues({ ...base, userId: '\u0000'.repeat(256) })).toEqual([expect.stringMatching(/^userId: Too big/)]);
  });
});
