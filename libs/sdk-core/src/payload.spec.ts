import { buildEvent, isValidEventName, rejectedIndexes, trackProblem, utf8Length } from './payload';

const LIBRARY = { name: 'foresight-test', version: '1.0.0' };

describe('buildEvent', () => {
  const draft = {
    event: 'click',
    at: Date.UTC(2026, 10, 21, 9, 30, 15, 250),
    sessionId: 'sess-1',
    messageId: 'msg-1',
    identity: { anonymousId: 'anon-1' },
    context: { library: LIBRARY },
  };

  it('builds the event POST /v1/events accepts: ISO timestamp, session, message id, anonymous id', () => {
    expect(buildEvent({ ...draft, properties: { role: 'button', textLength: 3 }, context: { library: LIBRARY, page: { url: 'https://shop.test/cart' } } })).toEqual({
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

  it('leaves out what it was not given: session, anonymous id (a server names its users)', () => {
    const built = buildEvent({ ...draft, sessionId: undefined, identity: { userId: 'user-7' } });
    expect(built).not.toHaveProperty('sessionId');
    expect(built).not.toHaveProperty('anonymousId');
    expect(built.userId).toBe('user-7');
  });

  it('leaves out empty properties and an unknown page', () => {
    const built = buildEvent({ ...draft, properties: {} });
    expect(built).not.toHaveProperty('properties');
    expect(built.context).toEqual({ library: LIBRARY });
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

describe('utf8Length', () => {
  it.each(['plain', 'café', '€ 10', 'emoji 🎉 and 中文', ''])('counts %p as TextEncoder encodes it', (text) => {
    expect(utf8Length(text)).toBe(new TextEncoder().encode(text).byteLength);
  });
});

describe('trackProblem', () => {
  it('names what is wrong with a track() call, and nothing when it is fine', () => {
    expect(trackProblem('checkout', { plan: 'pro' })).toBeUndefined();
    expect(trackProblem('', undefined)).toMatch(/event name/);
    expect(trackProblem('checkout', ['pro'])).toMatch(/properties must be an object/);
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
