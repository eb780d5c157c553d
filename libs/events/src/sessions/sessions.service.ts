import { Injectable } from '@nestjs/common';
import { notFound } from '@foresight/platform';
import type { StoredUserId } from '../users/stored-user-id';
import { UserEventsService } from '../users/user-events.service';
import { DERIVED_SESSION_PREFIX, sessionCutter } from './session-cutting';

export interface Session {
  sessionId: string;
  /** True when the client sent no sessionId and the session was cut by inactivity. */
  derived: boolean;
  startedAt: string;
  endedAt: string;
  durationMs: number;
  eventCount: number;
}

interface OpenSession {
  sessionId: string;
  derived: boolean;
  startedAt: number;
  endedAt: number;
  eventCount: number;
}

@Injectable()
export class SessionsService {
  constructor(private readonly userEvents: UserEventsService) {}

  /** Sessions of a user that started in [since, until); 404 when the organization has no event of the user. */
  async listForUser(organizationId: string, user: StoredUserId, since?: Date, until?: Date): Promise<Session[]> {
    const sessions = await this.sessionsOf(organizationId, user, since, until);
    if (sessions.length === 0 && !(await this.userEvents.hasEvents(organizationId, user))) throw notFound('user');
    return sessions;
  }

  /** Every session of the user's events in [since, until), oldest first; none when there are no events. */
  async sessionsOf(organizationId: string, user: StoredUserId, since?: Date, until?: Date): Promise<Session[]> {
    const sessionOf = sessionCutter();
    const sessions = new Map<string, OpenSession>();
    for (const { occurredAt, sessionId: clientSessionId } of await this.userEvents.timeline(organizationId, user, since, until)) {
      const sessionId = sessionOf(occurredAt, clientSessionId);
      const derived = clientSessionId === null;
      // A client could name its session like a derived one; the two stay apart.
      const key = `${derived ? DERIVED_SESSION_PREFIX : 'client:'}${sessionId}`;
      const session = sessions.get(key);
      if (session) {
        session.endedAt = occurredAt;
        session.eventCount++;
      } else {
        sessions.set(key, { sessionId, derived, startedAt: occurredAt, endedAt: occurredAt, eventCount: 1 });
      }
    }
    return [...sessions.values()]
      .sort((a, b) => a.startedAt - b.startedAt || (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0))
      .map((s) => ({
        sessionId: s.sessionId,
        derived: s.derived,
        startedAt: new Date(s.startedAt).toISOString(),
        endedAt: new Date(s.endedAt).toISOString(),
        durationMs: s.endedAt - s.startedAt,
        eventCount: s.eventCount,
      }));
  }
}
