/** Inactivity that ends a session the client did not name. */
export const SESSION_GAP_MS = 30 * 60_000;

/** Prefix of a derived session's id; the rest is the epoch milliseconds of its first event. */
export const DERIVED_SESSION_PREFIX = 'derived:';

/**
 * The one definition of session cutting, for the sessions API and the session features alike. Fed
 * a user's events oldest first, it returns each event's session id: the client's sessionId when the
 * event carries one, else a derived session that an untagged event more than SESSION_GAP_MS after
 * the previous untagged one starts.
 */
export function sessionCutter(): (occurredAt: number, clientSessionId: string | null) => string {
  let derived = '';
  let previousUntagged = -Infinity;
  return (occurredAt, clientSessionId) => {
    if (clientSessionId !== null) return clientSessionId;
    if (occurredAt - previousUntagged > SESSION_GAP_MS) derived = `${DERIVED_SESSION_PREFIX}${occurredAt}`;
    previousUntagged = occurredAt;
    return derived;
  };
}
