import { randomUUID } from 'node:crypto';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { type RunningProcess, startWorker } from '../support/processes';
import { type OrganizationWithToken, withApiSuite } from '../support/suite';
import { sendEvents, type TestEvent } from '../support/training';
import { userIdColumns } from '../support/user-id-columns';

const SECRET_PROPERTY = 'plan-secret-91d7';

interface UserExport {
  events: Array<{ messageId: string; properties: Record<string, unknown> | null }>;
  identities: Array<{ anonymousId: string }>;
}
interface Erasure {
  status: 'pending' | 'confirmed';
  erased: Record<string, number>;
}

/**
 * hashUserIds applies to data received from then on, so an organization that switches it holds a
 * user's data under two ids: as sent, and as its keyed HMAC. Export, erasure and suppression must
 * find both, whichever way the switch went.
 */
describe.each([
  { from: 'raw ids to pseudonyms', hashingFirst: false },
  { from: 'pseudonyms to raw ids', hashingFirst: true },
])('privacy across a hashUserIds switch, from $from', ({ hashingFirst }) => {
  const t = withApiSuite(`pseudonym_switch_${hashingFirst ? 'on_off' : 'off_on'}`);
  let worker: RunningProcess;
  let org: OrganizationWithToken;

  const api = <T>(path: string, method = 'GET', body?: unknown) => request<T>(`${t.api.baseUrl}${path}`, { token: org.token.secret, method, body });
  const query = (userId: string) => `userId=${encodeURIComponent(userId)}`;

  /** The id an event was stored under. */
  const storedIdOf = async (messageId: string) =>
    (await t.suite.sql<{ user_id: string }>(`SELECT user_id FROM events WHERE organization_id = $1 AND message_id = $2`, [org.organization.id, messageId]))[0]?.user_id;

  /** Sets hashUserIds and waits until ingestion applies it (each process re-reads the setting within seconds). */
  async function setHashing(on: boolean): Promise<void> {
    expect((await api('/v1/organization', 'PATCH', { hashUserIds: on })).status).toBe(200);
    const probe = `probe-${randomUUID()}`;
    await eventually(`hashUserIds ${on} applied`, async () => {
      const messageId = randomUUID();
      await sendEvents(t.api.baseUrl, org.token.secret, [{ event: 'probe', userId: probe, messageId }]);
      return (await storedIdOf(messageId))?.startsWith('psn_') === on ? true : undefined;
    });
  }

  /**
   * The user's anonymous visit linked by identify and a click with a custom property, then the switch,
   * then another click: the ids the user's data is stored under, each holding some.
   */
  async function storeAcrossSwitch(userId: string): Promise<{ messageIds: string[]; storedIds: string[] }> {
    const anonymousId = `anon-${userId}`;
    const click = (): TestEvent => ({ event: 'click', userId, properties: { plan: SECRET_PROPERTY }, messageId: randomUUID() });
    const before = [
      { event: 'page_view', anonymousId, properties: { url: 'https://shop.test/pricing' }, messageId: randomUUID() },
      { event: 'identify', userId, anonymousId, messageId: randomUUID() },
      click(),
    ];
    await setHashing(hashingFirst);
    await sendEvents(t.api.baseUrl, org.token.secret, before);
    await setHashing(!hashingFirst);
    const after = click();
    await sendEvents(t.api.baseUrl, org.token.secret, [after]);
    const anonymous = await t.suite.sql<{ anonymous_id: string }>(`SELECT anonymous_id FROM events WHERE organization_id = $1 AND message_id = $2`, [
      org.organization.id,
      before[0].messageId,
    ]);
    const storedIds = [await storedIdOf(before[2].messageId as string), await storedIdOf(after.messageId as string), anonymous[0].anonymous_id];
    expect(storedIds[0] === userId).toBe(!hashingFirst);
    expect(storedIds[1] === userId).toBe(hashingFirst);
    return { messageIds: [...before, after].map((event) => event.messageId as string), storedIds };
  }

  /** Rows of each table with a user id column that name one of `ids`, straight from the database. */
  async function rowsNaming(ids: string[]): Promise<Record<string, number>> {
    const byTable = new Map<string, string[]>();
    for (const { table, column } of await userIdColumns(t.suite)) byTable.set(table, [...(byTable.get(table) ?? []), column]);
    const found: Record<string, number> = {};
    for (const [table, columns] of byTable) {
      const [{ n }] = await t.suite.sql<{ n: string }>(`SELECT count(*) AS n FROM "${table}" WHERE ${columns.map((c) => `"${c}" = ANY($1)`).join(' OR ')}`, [ids]);
      if (Number(n) > 0) found[table] = Number(n);
    }
    return found;
  }

  beforeAll(async () => {
    org = await t.suite.createOrganization('switching', ['--hash-user-ids', String(hashingFirst)]);
    worker = await startWorker(t.suite.env);
  });

  afterAll(async () => {
    await worker?.stop();
  });

  it('exports the events stored before and after the switch', async () => {
    const userId = 'switch-export-5c2e';
    const { messageIds } = await storeAcrossSwitch(userId);

    const exported = await api<UserExport>(`/v1/users/export?${query(userId)}`);
    expect(exported.status).toBe(200);
    expect(exported.body.events.map((e) => e.messageId).sort()).toEqual([...messageIds].sort());
    expect(exported.body.events.filter((e) => e.properties?.plan === SECRET_PROPERTY)).toHaveLength(2);
    expect(exported.body.identities).toHaveLength(1);
  });

  it('erases the user under both ids from every table, and the confirmed record counts both', async () => {
    const userId = 'switch-erase-8b1f';
    const { storedIds } = await storeAcrossSwitch(userId);
    for (const id of storedIds) expect(await rowsNaming([id])).toHaveProperty('events');
    const held = await rowsNaming(storedIds);

    expect(await api(`/v1/users?${query(userId)}`, 'DELETE')).toMatchObject({ status: 200, body: { status: 'deleted', userId } });

    expect(await rowsNaming(storedIds)).toEqual({});
    expect((await api(`/v1/users/export?${query(userId)}`)).status).toBe(404);
    const [record] = await eventually('the erasure confirmed', async () => {
      const { body } = await api<{ erasures: Erasure[] }>(`/v1/users/erasures?${query(userId)}`);
      return body.erasures[0]?.status === 'confirmed' ? body.erasures : undefined;
    });
    // Counted as the export lists them: the events, and the identity links.
    expect(record.erased).toMatchObject({ events: held.events, identities: held.identities });
  });

  it('keeps suppressing a user erased with suppress=true after the switch, until unsuppressed', async () => {
    const userId = 'switch-suppress-3d9a';
    const click = () => ({ event: 'click', userId, messageId: randomUUID() });
    await setHashing(hashingFirst);
    await sendEvents(t.api.baseUrl, org.token.secret, [click()]);
    expect((await api(`/v1/users?${query(userId)}&suppress=true`, 'DELETE')).status).toBe(200);
    expect((await api('/v1/events', 'POST', [click()])).body).toMatchObject({ accepted: 0, suppressed: 1 });

    await setHashing(!hashingFirst);
    expect((await api('/v1/events', 'POST', [click()])).body).toMatchObject({ accepted: 0, suppressed: 1 });
    expect((await api(`/v1/users/export?${query(userId)}`)).status).toBe(404);

    expect((await api(`/v1/users/suppression?${query(userId)}`, 'DELETE')).body).toEqual({ userId, unsuppressed: true });
    expect((await api('/v1/events', 'POST', [click()])).body).toMatchObject({ accepted: 1, suppressed: 0 });
  });
});
