import { parseJson } from './storage';

/** Inactivity that ends a session: the same 30 minutes the server uses to cut sessions without an id. */
export const SESSION_TIMEOUT_MS = 30 * 60_000;

export interface SessionState {
  id: string;
  startedAt: number;
  lastActivityAt: number;
}

export interface SessionTouch {
  current: SessionState;
  /** The session that timed out, so its duration can be reported. */
  ended?: SessionState;
}

/** Extends the session on activity at `now`, or starts a new one after 30 minutes without any. */
export function touchSession(previous: SessionState | undefined, now: number, newId: () => string): SessionTouch {
  if (previous && now - previous.lastActivityAt <= SESSION_TIMEOUT_MS) {
    // A clock set backwards must not make the session shorter.
    return { current: { ...previous, lastActivityAt: Math.max(now, previous.lastActivityAt) } };
  }
  return { current: { id: newId(), startedAt: now, lastActivityAt: now }, ended: previous };
}

export function sessionDurationMs(session: SessionState): number {
  return session.lastActivityAt - session.startedAt;
}

/** The stored session, or undefined when there is none or it is not one of ours. */
export function parseSession(text: string | null): SessionState | undefined {
  const value = parseJson(text) as Partial<SessionState> | undefined;
  const valid = typeof value?.id === 'string' && typeof value.startedAt === 'number' && typeof value.lastActivityAt === 'number';
  return valid ? (value as SessionState) : undefined;
}
