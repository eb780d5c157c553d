import { DataSource } from 'typeorm';
import { type ActiveUser, type ActiveUsersStart, type StoredUserId, USER_HASHES, type UserEventWindow, type UserWindowSnapshot, windowToKeep } from '@foresight/events';
import { loadConfig, type Logger, SqlExecutor } from '@foresight/platform';
import { ActiveUsersService } from '../../libs/events/src/users/active-users.service';
import { DELTA_MARGIN_MS } from '../../libs/events/src/users/kept-windows/kept-windows.sql';
import { UserWindowsService } from '../../libs/events/src/users/kept-windows/user-windows.service';
import { KEEP_AFTER_EVENTS, UserEventsService } from '../../libs/events/src/users/user-events.service';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { cliJson, type RunningProcess, startApi } from '../support/processes';
import { type OrganizationWithToken, TestSuite } from '../support/suite';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WINDOW = 30 * DAY;

/**
 * user_windows on real Postgres, with events stored by the real API: a window kept as bulk scoring
 * keeps it (its read, ActiveUsersService, then windowToKeep and UserWindowsService.keep;
 * bulk-scoring.e2e-spec.ts runs the real job) is read back instead of the events while the user's
 * revision holds, for any later end, exactly as the events would answer, by serving and by the next
 * bulk scoring run. Anything that changes what the events answer (a new event, a new link,
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
  let activeUsers: ActiveUsersService;
  const warnings: unknown[] = [];
  const now = Date.now();

  beforeAll(async () => {
    suite = await TestSuite.create('user_windows');
    org = await suite.createOrganization('windows');
    other = await suite.createOrganization('windows_hostile');
    api = await startApi(suite.env);
    dataSource = await new DataSource({ type: 'postgres', url: suite.env.DATABASE_URL }).initialize();
    const logger = { warn: (entry: unknown) => void warnings.push(entry), error: (entry: unknown) => void warnings.push(entry) } as unknown as Logger;
    const sql = new SqlExecutor(dataSource, loadConfig(suite.env), logger);
    userWindows = new UserWindowsService(sql, logger);
    // Reads only: the events writer UserEventsService also holds is not needed.
    userEvents = new UserEventsService(sql, undefined as never, userWindows);
    activeUsers = new ActiveUsersService(sql);
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
  /** What a bulk scoring run at `takenAt` reads: the run's total, its active users in its order, the inactive users' windows to keep. */
  async function scoringRead(
    who: OrganizationWithToken,
    takenAt = now,
    afterUser: string | null = null,
  ): Promise<{ total: number; users: ActiveUser[]; inactiveWindows: UserWindowSnapshot[] }> {
    let start: ActiveUsersStart = { total: -1, inactiveWindows: [] };
    const users: ActiveUser[] = [];
    await activeUsers.eachActiveUser(
      { organizationId: organizationOf(who), from: new Date(takenAt - WINDOW), until: new Date(takenAt), ...USER_HASHES, afterUser: afterUser as StoredUserId | null },
      async (started) => void (start = started),
      (user) => void users.push(user),
    );
    return { ...start, users };
  }
  /** The users' windows a bulk scoring run at `takenAt` would keep, not yet kept. */
  async function readToKeep(who: OrganizationWithToken, users: string[], takenAt = now): Promise<UserWindowSnapshot[]> {
    const organizationId = organizationOf(who);
    const read = (await scoringRead(who, takenAt)).users.filter(({ user }) => users.includes(user));
    return read.flatMap(({ user, history, revisionToKeep, firstSeenAt }) => windowToKeep(organizationId, user, history, revisionToKeep, firstSeenAt, takenAt - WINDOW, takenAt) ?? []);
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

  it('extends a kept window by the events stored since while each is dated after its delta_from, and retires it otherwise', async () => {
    await send(org, '/v1/events', [
      { event: 'signup', userId: 'dee', timestamp: at(-10 * DAY) },
      { event: 'view_item', anonymousId: 'anon-dee', timestamp: at(-3 * DAY) },
      { event: 'login', userId: 'dee', anonymousId: 'anon-dee', timestamp: at(-2 * DAY) },
      { event: 'click', userId: 'dee', timestamp: at(-2 * HOUR) },
    ]);
    await send(other, '/v1/events', [{ event: 'hostile_probe', userId: 'dee', timestamp: at(-DAY) }]);
    await keep(org, ['dee']);
    await keep(other, ['dee']);
    const delta = async () =>
      (
        await suite.sql<{ revision: string; base: string; count: string; from: number }>(
          `SELECT revision::text, delta_base::text AS base, delta_count::text AS count, round(date_part('epoch', delta_from) * 1000) AS from
             FROM user_activity WHERE organization_id = $1 AND user_id = 'dee'`,
          [organizationOf(org)],
        )
      )[0];
    const base = await delta();
    expect(base).toMatchObject({ base: base.revision, count: '0', from: now - DELTA_MARGIN_MS });
    /** Serving's answer, and the one it gives with the kept events blanked by hand: what only the events since can have answered. */
    const answers = async (end = now + HOUR) => {
      const served = await window(org, 'dee', end);
      await suite.sql(`UPDATE user_windows SET events = '[]' WHERE organization_id = $1 AND user_id = 'dee'`, [organizationOf(org)]);
      const blanked = await window(org, 'dee', end);
      return { served, blanked: blanked?.events.map((e) => e.event), events: await fromEvents(org, 'dee', end) };
    };

    // Dated after delta_from, own and linked: counted, read from delta_from on beside the kept window.
    await send(org, '/v1/events', [{ event: 'add_to_cart', userId: 'dee', timestamp: at(-DELTA_MARGIN_MS / 2) }]);
    await send(org, '/v1/events', [{ event: 'scroll', anonymousId: 'anon-dee', timestamp: at(-DELTA_MARGIN_MS / 5), properties: { depth: 0.5 } }]);
    expect(await delta()).toMatchObject({ base: base.revision, count: '2', revision: String(Number(base.revision) + 2) });
    const extended = await answers();
    expect(extended.served?.events.map((e) => e.event)).toEqual(['signup', 'view_item', 'login', 'click', 'add_to_cart', 'scroll']);
    expect(extended.served).toEqual(extended.events);
    expect(extended.blanked).toEqual(['add_to_cart', 'scroll']);
    expect(extended.served?.events.map((e) => e.event)).not.toContain('hostile_probe');
    // Many users read together (a batch, or requests of the same turn) get the same.
    await keep(org, ['dee']);
    await send(org, '/v1/events', [{ event: 'add_to_cart', userId: 'dee', timestamp: at(-DELTA_MARGIN_MS / 3) }]);
    const [batched] = await userEvents.windows(organizationOf(org), ['dee', 'ada'] as StoredUserId[], new Date(now + HOUR - WINDOW), new Date(now + HOUR));
    expect(batched).toEqual((await answers()).events);

    // Dated before delta_from (a queue flushed late), a new link, the erasure of an id linked to the user: the window is read off the events.
    for (const change of [
      () => send(org, '/v1/events', [{ event: 'click', userId: 'dee', timestamp: at(-3 * HOUR) }]),
      () => send(org, '/v1/events', [{ event: 'login', userId: 'dee', anonymousId: 'anon-dee-2', timestamp: at(-DELTA_MARGIN_MS / 4) }]),
      () => userEvents.erase(organizationOf(org), 'anon-dee'),
    ]) {
      await keep(org, ['dee']);
      expect(await kept(org, 'dee')).toHaveLength(1);
      await change();
      const after = await delta();
      expect(Number(after.revision)).toBeGreaterThan(Number(after.base) + Number(after.count));
      const retired = await answers();
      expect(retired.served).toEqual(retired.events);
      expect(retired.blanked).toEqual(retired.events?.events.map((e) => e.event));
    }
    // The other organization's kept window of the same user id was never extended by ours.
    expect((await userEvents.window(organizationOf(other), 'dee' as StoredUserId, new Date(now + HOUR - WINDOW), new Date(now + HOUR)))?.events.map((e) => e.event)).toEqual([
      'hostile_probe',
    ]);
    await suite.sql(`DELETE FROM user_windows WHERE organization_id = $1`, [organizationOf(other)]);
  });

  it('serving keeps a window it read many events of off the events, and reads it back with the events stored since', async () => {
    /** `count` events of the user, an hour apart up to DELTA_MARGIN_MS before now. */
    const history = (user: string, count: number) =>
      Array.from({ length: count }, (_, i) => ({ event: i % 2 ? 'click' : 'add_to_cart', userId: user, timestamp: at(-DELTA_MARGIN_MS - (count - i) * HOUR) }));
    for (const user of ['hal', 'ivy', 'jo']) await send(org, '/v1/events', history(user, user === 'jo' ? KEEP_AFTER_EVENTS - 1 : KEEP_AFTER_EVENTS));
    await send(other, '/v1/events', history('hal', 3));
    const keptRevision = async (who: OrganizationWithToken, user: string) => {
      const [row] = await kept(who, user);
      return row?.revision === row?.current ? row?.revision : undefined;
    };

    // Alone and in a batch: each read takes the windows off the events, then keeps those of at least KEEP_AFTER_EVENTS such events.
    const alone = await window(org, 'hal');
    await eventually('hal kept', () => keptRevision(org, 'hal'));
    const [ivy, jo] = await userEvents.windows(organizationOf(org), ['ivy', 'jo'] as StoredUserId[], new Date(now - WINDOW), new Date(now));
    await eventually('ivy kept', () => keptRevision(org, 'ivy'));
    expect(await kept(org, 'jo')).toEqual([]);
    expect(await kept(other, 'hal')).toEqual([]);
    expect(alone?.events).toHaveLength(KEEP_AFTER_EVENTS);
    expect(ivy).toEqual(await fromEvents(org, 'ivy'));
    expect(jo?.events).toHaveLength(KEEP_AFTER_EVENTS - 1);

    // Read back: the kept row, and the event stored since, read off the events (what blanking the kept events leaves).
    await send(org, '/v1/events', [{ event: 'checkout', userId: 'hal', timestamp: at(-DELTA_MARGIN_MS / 2) }]);
    const served = await window(org, 'hal');
    expect(served?.events.map((e) => e.event)).toEqual([...alone!.events.map((e) => e.event), 'checkout']);
    await suite.sql(`UPDATE user_windows SET events = '[]' WHERE organization_id = $1 AND user_id = 'hal'`, [organizationOf(org)]);
    expect((await window(org, 'hal'))?.events.map((e) => e.event)).toEqual(['checkout']);
    expect(served).toEqual(await fromEvents(org, 'hal'));
    expect((await userEvents.window(organizationOf(other), 'hal' as StoredUserId, new Date(now - WINDOW), new Date(now)))?.events).toHaveLength(3);
  });

  it('answers as the events do for every user of demo data after a mix of new events, one at a time or read together', async () => {
    const demo = await suite.createOrganization('windows_demo');
    await cliJson(suite.env, ['demo', 'seed', '--org', organizationOf(demo), '--users', '200', '--days', '30']);
    const users = (await suite.sql<{ user_id: string }>(`SELECT user_id FROM user_activity WHERE organization_id = $1 ORDER BY user_id`, [organizationOf(demo)])).map(
      (row) => row.user_id,
    );
    expect(users.length).toBeGreaterThan(150);
    await keep(demo, users);
    // By position: an event dated after delta_from, one dated before it, an anonymous event dated after it
    // then linked, both kinds, or nothing.
    const changes = users.flatMap((user, i): Array<Record<string, unknown>> =>
      [
        [{ event: 'click', userId: user, timestamp: at(-DELTA_MARGIN_MS / 2 - i) }],
        [{ event: 'click', userId: user, timestamp: at(-5 * HOUR - i) }],
        [
          { event: 'view_item', anonymousId: `anon-${user}`, timestamp: at(-DELTA_MARGIN_MS / 2) },
          { event: 'login', userId: user, anonymousId: `anon-${user}`, timestamp: at(-DELTA_MARGIN_MS / 4) },
        ],
        [
          { event: 'add_to_cart', userId: user, timestamp: at(-DELTA_MARGIN_MS / 3), properties: { items: i } },
          { event: 'scroll', userId: user, timestamp: at(-2 * DAY), properties: { depth: 0.25 } },
        ],
        [],
      ][i % 5],
    );
    for (let start = 0; start < changes.length; start += 100) await send(demo, '/v1/events', changes.slice(start, start + 100));
    const [{ extended }] = await suite.sql<{ extended: number }>(
      `SELECT count(*)::int AS extended FROM user_activity WHERE organization_id = $1 AND revision > delta_base AND revision = delta_base + delta_count`,
      [organizationOf(demo)],
    );
    expect(extended).toBe(users.filter((_, i) => i % 5 === 0).length);

    const end = now + HOUR;
    const read = (user: string) => window(demo, user, end);
    const together = await Promise.all(users.map(read));
    const alone: Array<UserEventWindow | undefined> = [];
    for (const user of users) alone.push(await read(user));
    await suite.sql(`DELETE FROM user_windows WHERE organization_id = $1`, [organizationOf(demo)]);
    const offEvents: Array<UserEventWindow | undefined> = [];
    for (const user of users) offEvents.push(await read(user));
    expect(together).toEqual(offEvents);
    expect(alone).toEqual(offEvents);
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

  it("bulk scoring's next run reads kept windows as it would read the events: the same users, histories, first sightings and total, in the same order", async () => {
    const scoring = await suite.createOrganization('windows_scoring');
    // Ids whose order differs between UTF-16 code units and UTF-8 bytes (a character beyond the BMP, one just below it).
    const [smile, replacement] = ['zz\u{1F600}', 'zz\uFFFD'];
    await send(scoring, '/v1/events', [
      { event: 'signup', userId: 'kim', timestamp: at(-40 * DAY) },
      { event: 'add_to_cart', userId: 'kim', sessionId: 's-k', timestamp: at(-10 * DAY), properties: { items: 2, amount: 19.5 } },
      { event: 'screen_view', userId: 'kim', timestamp: at(-HOUR), properties: { screen: 'cart', dwellMs: 1_200, depth: 0.4 } },
      { event: 'checkout', userId: 'kim', timestamp: at(2 * HOUR) },
      // Anonymous, then linked.
      { event: 'view_item', anonymousId: 'anon-lee', timestamp: at(-5 * DAY) },
      { event: 'login', userId: 'lee', anonymousId: 'anon-lee', timestamp: at(-4 * DAY) },
      // Not active: nothing in the window, or nothing before its end yet.
      { event: 'click', userId: 'max', timestamp: at(-40 * DAY) },
      { event: 'click', userId: 'max', timestamp: at(-35 * DAY) },
      { event: 'click', userId: 'ned', timestamp: at(3 * HOUR) },
      // Active now; a day on, ray has nothing left in the window and pat only an event dated ahead today.
      { event: 'click', userId: 'oli', timestamp: at(-29.5 * DAY) },
      { event: 'click', userId: 'ray', timestamp: at(-29.5 * DAY) },
      { event: 'click', userId: 'pat', timestamp: at(-29.5 * DAY) },
      { event: 'purchase', userId: 'pat', timestamp: at(20 * HOUR) },
      { event: 'click', userId: smile, timestamp: at(-DAY) },
      { event: 'click', userId: replacement, timestamp: at(-2 * DAY) },
    ]);
    // The same user ids in another organization, kept with other events: never read for this one.
    await send(other, '/v1/events', [{ event: 'hostile', userId: 'kim', timestamp: at(-HOUR) }, { event: 'hostile', userId: 'max', timestamp: at(-HOUR) }]);
    /** What bulk scoring keeps after the read: the active users' windows, and the inactive ones'. */
    const keepAll = async (who: OrganizationWithToken, read: { users: ActiveUser[]; inactiveWindows: UserWindowSnapshot[] }, takenAt = now) =>
      userWindows.keep([
        ...read.users.flatMap((u) => windowToKeep(organizationOf(who), u.user, u.history, u.revisionToKeep, u.firstSeenAt, takenAt - WINDOW, takenAt) ?? []),
        ...read.inactiveWindows,
      ]);
    await keepAll(other, await scoringRead(other));
    const withoutRevisions = (read: { total: number; users: ActiveUser[] }) => ({ total: read.total, users: read.users.map((u) => ({ ...u, revisionToKeep: undefined })) });
    const forgetKept = () => suite.sql(`DELETE FROM user_windows WHERE organization_id = $1`, [organizationOf(scoring)]);

    const offEvents = await scoringRead(scoring);
    expect(offEvents.users.map((u) => u.user)).toEqual(['kim', 'lee', 'oli', 'pat', 'ray', replacement, smile]);
    expect(offEvents.total).toBe(7);
    expect(offEvents.users.every((u) => u.revisionToKeep !== undefined)).toBe(true);
    const kim = offEvents.users[0];
    expect(kim.history.map((e) => e.event)).toEqual(['add_to_cart', 'screen_view', 'checkout']);
    expect(kim.firstSeenAt).toBe(now - 40 * DAY);
    expect(offEvents.users[1].history.map((e) => e.event)).toEqual(['view_item', 'login']);
    // max, inactive, gets a window of no events; ned's only event is dated ahead, so ned is read again next time.
    expect(offEvents.inactiveWindows.map((w) => w.user)).toEqual(['max']);

    await keepAll(scoring, offEvents);
    const offKept = await scoringRead(scoring);
    expect(offKept.users.every((u) => u.revisionToKeep === undefined)).toBe(true);
    expect(offKept.inactiveWindows).toEqual([]);
    expect(withoutRevisions(offKept)).toEqual(withoutRevisions(offEvents));
    // The inactive user's kept window answers serving as the events do.
    const maxKept = await userEvents.window(organizationOf(scoring), 'max' as StoredUserId, new Date(now - WINDOW), new Date(now));
    expect(maxKept).toMatchObject({ events: [], lastSeenAt: now - 35 * DAY, firstSeenAt: now - 40 * DAY });
    expect(maxKept).toEqual(await fromEvents(scoring, 'max'));
    await keepAll(scoring, await scoringRead(scoring));
    expect(await kept(scoring, 'max')).toHaveLength(1);

    // Users changed since: read whole again (their kept window and the events since, here), merged in byte
    // order among the kept ones; a resumed run reads only those after its checkpoint. max, inactive with
    // a window of no events, is active by the event stored since alone.
    await send(scoring, '/v1/events', [
      { event: 'click', userId: 'oli', timestamp: at(-DELTA_MARGIN_MS) },
      { event: 'click', userId: replacement, timestamp: at(-DELTA_MARGIN_MS) },
      { event: 'click', userId: 'max', timestamp: at(-DELTA_MARGIN_MS / 2) },
    ]);
    const mixed = await scoringRead(scoring);
    expect(mixed.users.map((u) => [u.user, u.revisionToKeep !== undefined])).toEqual([
      ['kim', false],
      ['lee', false],
      ['max', true],
      ['oli', true],
      ['pat', false],
      ['ray', false],
      [replacement, true],
      [smile, false],
    ]);
    const resumed = await scoringRead(scoring, now, 'lee');
    expect(resumed).toEqual({ total: 8, users: mixed.users.slice(2), inactiveWindows: mixed.inactiveWindows });
    expect((await scoringRead(scoring, now, replacement)).users.map((u) => u.user)).toEqual([smile]);
    // Those two events are dated from delta_from on: oli and the other are read off their kept window and the events stored since.
    await suite.sql(`UPDATE user_windows SET events = '[]' WHERE organization_id = $1 AND user_id = 'oli'`, [organizationOf(scoring)]);
    const oli = (await scoringRead(scoring)).users.find((u) => u.user === 'oli');
    expect(oli?.history.map((e) => e.occurredAt)).toEqual([now - DELTA_MARGIN_MS]);
    await forgetKept();
    const mixedOffEvents = await scoringRead(scoring);
    expect(withoutRevisions(mixed)).toEqual(withoutRevisions(mixedOffEvents));
    const revisionOf = (read: { users: ActiveUser[] }, user: string) => read.users.find((u) => u.user === user)?.revisionToKeep;
    for (const user of ['max', 'oli', replacement]) expect(revisionOf(mixed, user)).toBe(revisionOf(mixedOffEvents, user));

    // A day on: the windows kept today serve tomorrow's run (ned, not active today, has none) and answer as the events do.
    const tomorrow = now + DAY;
    await keepAll(scoring, mixedOffEvents);
    const keptTomorrow = await scoringRead(scoring, tomorrow);
    expect(keptTomorrow.users.filter((u) => u.revisionToKeep !== undefined).map((u) => u.user)).toEqual(['ned']);
    await forgetKept();
    const eventsTomorrow = await scoringRead(scoring, tomorrow);
    expect(withoutRevisions(keptTomorrow)).toEqual(withoutRevisions(eventsTomorrow));
    expect(keptTomorrow.users.map((u) => u.user)).toEqual(['kim', 'lee', 'max', 'ned', 'oli', 'pat', replacement, smile]);
    expect(keptTomorrow.total).toBe(8);
    expect(keptTomorrow.users.find((u) => u.user === 'pat')?.history.map((e) => e.event)).toEqual(['purchase']);
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
