import { parseSession, SESSION_TIMEOUT_MS, sessionDurationMs, type SessionState, touchSession } from './session';

describe('touchSession', () => {
  let next = 0;
  const newId = () => `s${++next}`;
  const start = Date.UTC(2026, 10, 21, 9, 0);

  it('starts a session on the first activity', () => {
    const { current, ended } = touchSession(undefined, start, newId);
    expect(current).toEqual({ id: expect.stringMatching(/^s\d+$/), startedAt: start, lastActivityAt: start });
    expect(ended).toBeUndefined();
  });

  it('keeps the session through activity up to 30 minutes apart, however long it runs', () => {
    let session: SessionState = touchSession(undefined, start, newId).current;
    for (let minute = 30; minute <= 180; minute += 30) {
      const touch = touchSession(session, start + minute * 60_000, newId);
      expect(touch.ended).toBeUndefined();
      expect(touch.current.id).toBe(session.id);
      session = touch.current;
    }
    expect(sessionDurationMs(session)).toBe(180 * 60_000);
  });

  it('rolls over after more than 30 minutes of inactivity and hands back the ended session', () => {
    const first = touchSession(undefined, start, newId).current;
    const later = touchSession(first, start + 10 * 60_000, newId).current;
    const { current, ended } = touchSession(later, later.lastActivityAt + SESSION_TIMEOUT_MS + 1, newId);
    expect(current.id).not.toBe(first.id);
    expect(current.startedAt).toBe(later.lastActivityAt + SESSION_TIMEOUT_MS + 1);
    expect(ended).toEqual(later);
    expect(sessionDurationMs(ended as SessionState)).toBe(10 * 60_000);
  });

  it('does not shorten a session when the clock goes backwards', () => {
    const session = touchSession(undefined, start, newId).current;
    expect(touchSession(session, start - 5_000, newId).current).toEqual(session);
  });
});

describe('parseSession', () => {
  it('reads back what was stored and ignores anything else', () => {
    const session = { id: 'abc', startedAt: 1, lastActivityAt: 2 };
    expect(parseSession(JSON.stringify(session))).toEqual(session);
    expect(parseSession(null)).toBeUndefined();
    expect(parseSession('{not json')).toBeUndefined();
    expect(parseSession(JSON.stringify({ id: 'abc', startedAt: '1' }))).toBeUndefined();
  });
});
