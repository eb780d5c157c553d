import { finished } from 'node:stream/promises';
import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { createRandom } from '@foresight/platform';

const DAY_MS = 86_400_000;
/** Lines per COPY write: large enough to amortise, small enough to keep the bench's own memory flat. */
const LINES_PER_WRITE = 20_000;

/**
 * Seeds `users` users' events straight into the events table by COPY (no ingestion: a million users
 * through the API would take the bench an hour), few events each over the `days` days before `now`:
 * sessions of views and searches, more of them the more engaged the user; carts by intent; a
 * checkout after a cart by intent, within three days. What a model learns from is there (carts,
 * recency, activity), at a cost per user that is the same for any number of users. Returns the events.
 */
export async function copySeedEvents(databaseUrl: string, organizationId: string, users: number, days: number, now: number): Promise<number> {
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  const next = createRandom(users);
  let events = 0;
  try {
    const copy = pg.query(copyFrom('COPY events (organization_id, message_id, event, user_id, session_id, occurred_at, received_at) FROM STDIN'));
    const received = new Date(now).toISOString();
    let lines: string[] = [];
    const add = (user: number, event: string, session: string, at: number) => {
      lines.push(`${organizationId}\tm${user}-${events++}\t${event}\tu${user}\t${session}\t${new Date(Math.min(at, now - 1)).toISOString()}\t${received}`);
    };
    for (let user = 0; user < users; user++) {
      const engagement = next();
      const intent = next();
      const firstDay = Math.floor(next() * days);
      const sessions = 1 + Math.floor(engagement * 6);
      for (let s = 0; s < sessions; s++) {
        const day = firstDay + Math.floor(next() * (days - firstDay));
        let at = now - (days - day) * DAY_MS + Math.floor(next() * 20 * 3_600_000);
        const session = `s${user}-${s}`;
        add(user, 'page_view', session, at);
        if (next() < 0.3) add(user, 'search', session, (at += 60_000));
        if (next() < intent * 0.6) {
          add(user, 'add_to_cart', session, (at += 60_000));
          if (next() < intent * 0.5) add(user, 'checkout', `${session}-c`, at + Math.floor(next() * 3 * DAY_MS));
        }
      }
      if (lines.length >= LINES_PER_WRITE) {
        if (!copy.write(`${lines.join('\n')}\n`)) await new Promise((resolve) => copy.once('drain', resolve));
        lines = [];
      }
    }
    copy.end(lines.length > 0 ? `${lines.join('\n')}\n` : '');
    await finished(copy);
    await pg.query('ANALYZE events');
    return events;
  } finally {
    await pg.end();
  }
}
