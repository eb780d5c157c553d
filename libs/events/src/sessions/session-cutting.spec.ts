import { SESSION_GAP_MS, sessionCutter } from './session-cutting';

describe('sessionCutter', () => {
  it('keeps client sessions and cuts untagged events after the inactivity gap', () => {
    const sessionOf = sessionCutter();
    const start = 1_700_000_000_000;
    const cut = [
      sessionOf(start, null),
      sessionOf(start + SESSION_GAP_MS, 'client-1'),
      // Exactly the gap after the previous untagged event: still the same session.
      sessionOf(start + SESSION_GAP_MS, null),
      sessionOf(start + 2 * SESSION_GAP_MS + 1, null),
      sessionOf(start + 2 * SESSION_GAP_MS + 2, 'client-1'),
    ];
    expect(cut).toEqual([`derived:${start}`, 'client-1', `derived:${start}`, `derived:${start + 2 * SESSION_GAP_MS + 1}`, 'client-1']);
  });
});
