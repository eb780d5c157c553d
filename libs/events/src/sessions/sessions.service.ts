import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { notFound } from '@foresight/platform';
import { USER_EVENTS_FILTER } from '../user-events';

/** Inactivity that ends a derived session. */
export const SESSION_GAP_MINUTES = 30;

export interface Session {
  sessionId: string;
  /** True when the client sent no sessionId and the session was cut by inactivity. */
  derived: boolean;
  startedAt: string;
  endedAt: string;
  durationMs: number;
  eventCount: number;
}

const SESSIONS_SQL = `
  WITH user_events AS (
    SELECT occurred_at, session_id FROM events WHERE ${USER_EVENTS_FILTER} AND occurred_at >= $3 AND occurred_at < $4
  ), untagged AS (
    SELECT occurred_at,
           CASE WHEN occurred_at - lag(occurred_at) OVER (ORDER BY occurred_at) <= interval '${SESSION_GAP_MINUTES} minutes'
                THEN 0 ELSE 1 END AS starts_session
      FROM user_events WHERE session_id IS NULL
  ), numbered AS (
    SELECT occurred_at, sum(starts_session) OVER (ORDER BY occurred_at) AS session_number FROM untagged
  ), sessions AS (
    SELECT 'derived:' || (extract(epoch FROM min(occurred_at)) * 1000)::bigint AS session_id, true AS derived,
           min(occurred_at) AS started_at, max(occurred_at) AS ended_at, count(*) AS event_count
      FROM numbered GROUP BY session_number
    UNION ALL
    SELECT session_id, false, min(occurred_at), max(occurred_at), count(*)
      FROM user_events WHERE session_id IS NOT NULL GROUP BY session_id
  )
  SELECT * FROM sessions ORDER BY started_at, session_id`;

interface SessionRow {
  session_id: string;
  derived: boolean;
  started_at: Date;
  ended_at: Date;
  event_count: string;
}

@Injectable()
export class SessionsService {
  constructor(private readonly dataSource: DataSource) {}

  /** Sessions of a user that started in [since, until); 404 when the organization has no event of the user. */
  async listForUser(organizationId: string, userId: string, since?: Date, until?: Date): Promise<Session[]> {
    const sessions = await this.sessionsOf(organizationId, userId, since, until);
    if (sessions.length === 0 && !(await this.hasEvents(organizationId, userId))) throw notFound('user');
    return sessions;
  }

  /** Every session of a user, none when there are no events. `userId` as stored. */
  async sessionsOf(organizationId: string, userId: string, since?: Date, until?: Date): Promise<Session[]> {
    const rows: SessionRow[] = await this.dataSource.query(SESSIONS_SQL, [
      organizationId,
      userId,
      since?.toISOString() ?? '-infinity',
      until?.toISOString() ?? 'infinity',
    ]);
    return rows.map((row) => ({
      sessionId: row.session_id,
      derived: row.derived,
      startedAt: row.started_at.toISOString(),
      endedAt: row.ended_at.toISOString(),
      durationMs: row.ended_at.getTime() - row.started_at.getTime(),
      eventCount: Number(row.event_count),
    }));
  }

  private async hasEvents(organizationId: string, userId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(`SELECT 1 FROM events WHERE ${USER_EVENTS_FILTER} LIMIT 1`, [organizationId, userId]);
    return rows.length > 0;
  }
}
