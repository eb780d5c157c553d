import { DataSource } from 'typeorm';
import { type StoredUserId, type UserEventWindow, type UserWindowSnapshot, windowToKeep } from '@foresight/events';
import { type Logger, RawQueriesService } from '@foresight/platform';
import { UserEventsService } from '../../libs/events/src/users/user-events.service';
import { UserWindowsService } from '../../libs/events/src/users/user-windows.service';
import { request } from '../support/http';
import { type RunningProcess, startApi } from '../support/processes';
import { type OrganizationWithToken, TestSuite } from '../support/suite';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WINDOW = 30 * DAY;

/**
 * user_windows on real Postgres, with events stored by the real API: a window kept as bulk scoring
 * keeps it (its cursor, windowToKeep, UserWindowsService.keep; bulk-scoring.e2e-spec.ts runs the real
 * job) is read back instead of the events while the user's revision holds, for any later end, exactly
 * as the events would answer. Anything that changes what the events answer (a new event, a new link,
 * erasure, retention) must retire it, and no organization ever reads another's.
 */
describe('user windows: kept windows answer as the events do', () => {
  let suite: TestSuite;
  let org: OrganizationWithToken;
  let other: OrganizationWithToken;
  let api: RunningProcess;
  let dataSource: DataSource;
  let userWindows: UserWindowsService;
  let userEvents: UserEventsService;
  const warnings: unknown[] = [];
  const now = Date.now();

  beforeAll(async () => {
    suite = await TestSuite.create('user_windows');
    org = await suite.createOrganization('windows');
    other = await suite.createOrganization('windows_hostile');
    api = await startApi(suite.env);
    dataSource = await new DataSource({ type: 'postgres', url: suite.env.DATABASE_URL }).initialize();
    userWindows = new UserWindowsService(dataSource, { warn: (entry: unknown) => void warnings.push(entry) } as unknown as Logger);
    // Reads only: the events writer UserEventsService also holds is not needed.
    userEvents = new UserEventsService(dataSource, new RawQueriesService(dataSource), undefined as never);
  });

  afterAll(async () => {
    await api?.stop();
    await dataSource?.destroy();
    await suite?.destroy();
  });

  const at = (offset: number) => new Date(now + offset).toISOString();
  async function send(who: OrganizationWithToken, path: string, body: unknown): Promise<void> {
    const answer = await request(`${api.baseUrl}${path}`, { token: who.token.secret, method: 'POST', body });
    expect(answer.status).toBe(200);
  }
  const organizationOf = (who: OrganizationWithToken) => who.organization.id;
  /** The window [end - 30 d, end), as serving asks for it. */
  const window = (who: OrganizationWithToken, user: string, end = now): Promise<UserEventWindow | undefined> =>
    userEvents.window(organizationOf(who), user as StoredUserId, new Date(end - WINDOW), new Date(end));
  /** The same window read off the events: no kept window to read. */
  async function fromEvents(who: OrganizationWithToken, user: string, end = now): Promise<UserEventWindow | undefined> {
    await suite.sql(`DELETE FROM user_windows WHERE organization_id = $1 AND user_id = $2`, [organizationOf(who), user]);
    return window(who, user, end);
  }
  /** The users' windows a bulk scoring run at `takenAt` would keep (revisions, then first seen, then its cursor), not yet kept. */
  async function readToKeep(who: OrganizationWithToken, users: string[], takenAt = now): Promise<UserWindowSnapshot[]> {
    const organizationId = organizationOf(who);
    const revisions = await userWindows.revisionsToKeep(organizationId);
    const firstSeen = await userEvents.firstSeen(organizationId);
    const windows: UserWindowSnapshot[] = [];
    await userEvents.eachUserHistory(organizationId, new Date(takenAt - WINDOW), null, users as StoredUserId[], (user, history) => {
      const kept = windowToKeep(organizationId, user, history, revisions.get(user), firstSeen.get(user), takenAt - WINDOW, takenAt);
      if (kept) windows.push(kept);
    });
    return windows;
  }
  const keep = async (who: OrganizationWithToken, users: string[], takenAt = now) => userWindows.keep(await readToKeep(who, users, takenAt));
  const kept = (who: OrganizationWithToken, user: string) =>
    suite.sql<{ revision: string; current: string; first_seen: number }>(
      `SELECT w.revision::text AS revision, a.revision::text AS current, w.first_seen FROM user_windows w JOIN user_activity a USING (organization_id, user_id)
        WHERE w.organization_id = $1 AND w.user_id = $2`,
      [organizationOf(who), user],
    );

  it('reads a kept window back as the events answer it, also for a later end', async () => {
    await send(org, '/v1/events', [
      { event: 'signup', userId: 'ada', timestamp: at(-40 * DAY) },
      { event: 'add_to_cart', userId: 'ada', sessionId: 's-1', timestamp: at(-20 * DAY), properties: { items: 3, amount: 42.5 } },
      { event: 'screen_view', userId: 'ada', sessionId: 's-1', timestamp: at(-20 * DAY + 60_000), properties: { screen: 'pricing', dwellMs: 5_000, depth: 0.7 } },
      { event: 'click', userId: 'ada', timestamp: at(-HOUR), properties: { hesitationMs: 800 } },
      // Dated ahead (a client clock running fast): outside the window now, inside it three hours on.
      { event: 'checkout', userId: 'ada', timestamp: at(2 * HOUR) },
      // Anonymous, then linked to ada by an event naming both: counts for her.
      { event: 'view_item', anonymousId: 'anon-ada', timestamp: at(-5 * DAY) },
      { event: 'login', userId: 'ada', anonymousId: 'anon-ada', timestamp: at(-4 * DAY) },
    ]);
    const read = await fromEvents(org, 'ada');
    expect(read?.events.map((e) => e.event)).toEqual(['add_to_cart', 'screen_view', 'view_item', 'login', 'click']);
    expect(read?.events[1]).toMatchObject({ sessionId: 's-1', screen: 'pricing', dwellMs: 5_000, scrollDepth: 0.7 });
    expect(read?.events[0].numbers).toEqual({ items: 3, amount: 42.5 });
    expect(read).toMatchObject({ firstSeenAt: now - 40 * DAY, lastSeenAt: now - HOUR });

    await keep(org, ['ada']);
    const [row] = await kept(org, 'ada');
    expect(row.revision).toBe(row.current);
    expect(await window(org, 'ada')).toEqual(read);
    // The kept row is what answered: emptied by hand, the answer is empty too.
    await suite.sql(`UPDATE user_windows SET events = '[]' WHERE organization_id = $1 AND user_id = 'ada'`, [organizationOf(org)]);
    expect((await window(org, 'ada'))?.events).toEqual([]);
    // A run finding it kept at the user's revision leaves it.
    await keep(org, ['ada']);
    expect((await window(org, 'ada'))?.events).toEqual([]);

    await fromEvents(org, 'ada');
    await keep(org, ['ada']);
    for (const [later, events] of [
      [now + 3 * HOUR, ['add_to_cart', 'screen_view', 'view_item', 'login', 'click', 'checkout']],
      [now + 15 * DAY, ['view_item', 'login', 'click', 'checkout']],
    ] as const) {
      const keptLater = await window(org, 'ada', later);
      expect(keptLater?.events.map((e) => e.event)).toEqual(events);
      expect(keptLater?.lastSeenAt).toBe(now + 2 * HOUR);
      expect(keptLater).toEqual(await fromEvents(org, 'ada', later));
      await keep(org, ['ada']);
    }
    // A window starting before the kept one (a clock behind the run's) is read off the events.
    await fromEvents(org, 'ada');
    await keep(org, ['ada'], now + DAY);
    expect(await kept(org, 'ada')).toHaveLength(1);
    await suite.sql(`UPDATE user_windows SET events = '[]' WHERE organization_id = $1 AND user_id = 'ada'`, [organizationOf(org)]);
    expect(await window(org, 'ada')).toEqual(read);
    expect((await window(org, 'ada', now + DAY))?.events).toEqual([]);
  });

  it('retires the kept window when a new event or a new link changes what the events answer', async () => {
    await keep(org, ['ada']);
    await send(org, '/v1/events', [{ event: 'click', userId: 'ada', timestamp: at(-2 * HOUR) }]);
    const [row] = await kept(org, 'ada');
    expect(row.revision).not.toBe(row.current);
    const afterEvent = await window(org, 'ada');
    expect(afterEvent?.events.filter((e) => e.event === 'click')).toHaveLength(2);
    expect(afterEvent).toEqual(await fromEvents(org, 'ada'));

    await send(org, '/v1/events', [{ event: 'wishlist', anonymousId: 'anon-ada-2', timestamp: at(-3 * DAY) }]);
    await keep(org, ['ada']);
    expect((await window(org, 'ada'))?.events.map((e) => e.event)).not.toContain('wishlist');
    await send(org, '/v1/events', [{ event: 'login', userId: 'ada', anonymousId: 'anon-ada-2', timestamp: at(-3 * HOUR) }]);
    const afterLink = await window(org, 'ada');
    expect(afterLink?.events.map((e) => e.event)).toContain('wishlist');
    expect(afterLink).toEqual(await fromEvents(org, 'ada'));

    // A window read before the revision moved is not kept after it.
    const outdated = await readToKeep(org, ['ada']);
    await send(org, '/v1/events', [{ event: 'click', userId: 'ada', timestamp: at(-HOUR / 2) }]);
    await userWindows.keep(outdated);
    expect(await kept(org, 'ada')).toEqual([]);
  });

  it('answers a batch as single reads, kept or not, in the order asked', async () => {
    await send(org, '/v1/events', [
      { event: 'click', userId: 'bob', timestamp: at(-DAY) },
      { event: 'click', userId: 'cy', timestamp: at(-2 * DAY) },
    ]);
    await keep(org, ['ada', 'bob']);
    const users = ['cy', 'nobody', 'ada', 'bob'] as StoredUserId[];
    const batch = await userEvents.windows(organizationOf(org), users, new Date(now - WINDOW), new Date(now));
    expect(await kept(org, 'cy')).toEqual([]);
    expect(batch[1]).toBeUndefined();
    const singles = [];
    for (const user of users) singles.push(await fromEvents(org, user));
    expect(batch).toEqual(singles);
  });

  it("never reads another organization's window of the same user id", async () => {
    await send(other, '/v1/events', [{ event: 'hostile_probe', userId: 'ada', timestamp: at(-DAY) }]);
    await keep(org, ['ada', 'bob']);
    const ours = await window(org, 'ada');
    expect(ours?.events.map((e) => e.event)).not.toContain('hostile_probe');
    // Nothing kept for the other organization: its own events answer it, never our kept rows.
    expect((await window(other, 'ada'))?.events.map((e) => e.event)).toEqual(['hostile_probe']);
    expect(await window(other, 'bob')).toBeUndefined();
    await keep(other, ['ada']);
    expect((await window(other, 'ada'))?.events.map((e) => e.event)).toEqual(['hostile_probe']);
    expect(await window(org, 'ada')).toEqual(ours);
    // Keeping for one organization never names another's users.
    expect(await suite.sql(`SELECT user_id FROM user_windows WHERE organization_id = $1`, [organizationOf(other)])).toEqual([{ user_id: 'ada' }]);
  });

  it('erasure removes the kept window, and a window read before the erasure is not kept after it', async () => {
    await send(org, '/v1/events', [{ event: 'click', userId: 'eve', timestamp: at(-DAY) }]);
    await keep(org, ['eve']);
    expect(await kept(org, 'eve')).toHaveLength(1);
    const erase = () => request(`${api.baseUrl}/v1/users?userId=eve`, { token: org.token.secret, method: 'DELETE' });
    expect((await erase()).status).toBe(200);
    expect(await kept(org, 'eve')).toEqual([]);

    await send(org, '/v1/events', [{ event: 'click', userId: 'eve', timestamp: at(-DAY) }]);
    const before = await readToKeep(org, ['eve']);
    expect(before).toHaveLength(1);
    expect((await erase()).status).toBe(200);
    await userWindows.keep(before);
    expect(await suite.sql(`SELECT 1 FROM user_windows WHERE user_id = 'eve'`)).toEqual([]);
  });

  it('retention deletes the kept windows holding expired events, and keeps none from before its cutoff', async () => {
    await send(org, '/v1/events', [
      { event: 'signup', userId: 'old', timestamp: at(-40 * DAY) },
      { event: 'click', userId: 'old', timestamp: at(-DAY) },
      { event: 'click', userId: 'new', timestamp: at(-DAY) },
    ]);
    await keep(org, ['old', 'new']);
    expect((await window(org, 'old'))?.firstSeenAt).toBe(now - 40 * DAY);
    await userEvents.expire(organizationOf(org), new Date(now - 35 * DAY));
    expect(await kept(org, 'old')).toEqual([]);
    expect(await kept(org, 'new')).toHaveLength(1);
    expect((await window(org, 'old'))?.firstSeenAt).toBe(now - DAY);

    // A window counting an event older than the organization's retention is not kept (read before a
    // retention run, kept after it).
    await send(org, '/v1/events', [{ event: 'click', userId: 'veteran', timestamp: at(-25 * DAY) }]);
    await suite.sql(`UPDATE organizations SET retention_days = 20 WHERE id = $1`, [organizationOf(org)]);
    await keep(org, ['veteran', 'old']);
    expect(await kept(org, 'veteran')).toEqual([]);
    expect(await kept(org, 'old')).toHaveLength(1);
    expect(warnings).toEqual([]);
  });
});
