import { buildEvent, isValidEventName, LIBRARY, pageUrl, rejectedIndexes } from './payload';

describe('buildEvent', () => {
  const draft = {
    event: 'click',
    at: Date.UTC(2026, 10, 21, 9, 30, 15, 250),
    sessionId: 'sess-1',
    messageId: 'msg-1',
    identity: { anonymousId: 'anon-1' },
  };

  it('builds the event POST /v1/events accepts: ISO timestamp, session, message id, anonymous id', () => {
    expect(buildEvent({ ...draft, properties: { role: 'button', textLength: 3 }, url: 'https://shop.test/cart' })).toEqual({
      event: 'click',
      messageId: 'msg-1',
      timestamp: '2026-11-21T09:30:15.250Z',
      sessionId: 'sess-1',
      anonymousId: 'anon-1',
      properties: { role: 'button', textLength: 3 },
      context: { library: LIBRARY, page: { url: 'https://shop.test/cart' } },
    });
  });

  it('sends a user id only once the developer identified the user', () => {
    expect(buildEvent(draft)).not.toHaveProperty('userId');
    expect(buildEvent({ ...draft, identity: { anonymousId: 'anon-1', userId: 'user-7' } })).toMatchObject({ anonymousId: 'anon-1', userId: 'user-7' });
  });

  it('leaves out empty properties and an unknown page', () => {
    const built = buildEvent({ ...draft, properties: {} });
    expect(built).not.toHaveProperty('properties');
    expect(built.context).toEqual({ library: LIBRARY });
  });
});

describe('pageUrl', () => {
  it('keeps origin and path, never the query or the fragment', () => {
    expect(pageUrl('https://shop.test/sdk/example/pricing?email=jane%40example.com#token=pat_dev_abc')).toBe('https://shop.test/sdk/example/pricing');
  });
});

describe('isValidEventName', () => {
  it.each([
    ['checkout_start', true],
    ['page:view/v2 - beta.1', true],
    ['', false],
    ['x'.repeat(129), false],
    ['émoji ✓', false],
    [42, false],
  ])('%p → %p', (name, valid) => {
    expect(isValidEventName(name)).toBe(valid);
  });
});

describe('rejectedIndexes', () => {
  it('reads the indexes a 400 names in details, once each', () => {
    const body = { error: 'invalid_request', details: [{ path: '3.properties.depth' }, { path: '3.event' }, { path: '0' }, { path: 'x' }] };
    expect(rejectedIndexes(body)).toEqual([3, 0]);
  });

  it('finds none in a body without details', () => {
    expect(rejectedIndexes({ error: 'invalid_token', message: 'revoked' })).toEqual([]);
    expect(rejectedIndexes(undefined)).toEqual([]);
  });
});
