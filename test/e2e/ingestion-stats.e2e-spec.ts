import { randomUUID } from 'node:crypto';
import { request } from '../support/http';
import { cliJson } from '../support/processes';
import type { OrganizationWithToken } from '../support/suite';
import { withApiSuite } from '../support/suite';

interface IngestionPoint {
  start: string;
  library: string;
  accepted: number;
  duplicates: number;
  rejected: number;
}

const event = (extra: Record<string, unknown> = {}) => ({ event: 'click', userId: 'user-1', messageId: randomUUID(), ...extra });
const fromLibrary = (name: string) => ({ context: { library: { name, version: '1.0.0' } } });

/** The shared ingestion-stats route: per organization, per bucket and library, what every ingestion route accepted or refused. */
describe('ingestion stats: GET /v1/events/ingestion', () => {
  const t = withApiSuite('ingestion_stats');
  let other: OrganizationWithToken;
  const url = (path: string) => `${t.api.baseUrl}/v1${path}`;
  const post = (path: string, body: unknown, token = t.org.token.secret) => request<Record<string, number>>(url(path), { token, method: 'POST', body });
  /** Summed over the buckets, so an hour turning during the test changes nothing. */
  const totals = async (token: string, query = 'bucket=hour') => {
    const answer = await request<{ series: IngestionPoint[] }>(url(`/events/ingestion?${query}`), { token });
    expect(answer.status).toBe(200);
    const byLibrary: Record<string, Omit<IngestionPoint, 'start' | 'library'>> = {};
    for (const { library, accepted, duplicates, rejected } of answer.body.series) {
      const sum = (byLibrary[library] ??= { accepted: 0, duplicates: 0, rejected: 0 });
      sum.accepted += accepted;
      sum.duplicates += duplicates;
      sum.rejected += rejected;
    }
    return byLibrary;
  };

  beforeAll(async () => {
    other = await t.suite.createOrganization('ingestion_other');
  });

  it('counts accepted, duplicate and rejected events per library on /v1/events and the Segment routes', async () => {
    const sdkBatch = Array.from({ length: 7 }, () => event(fromLibrary('@foresight/node')));
    expect((await post('/events', sdkBatch)).body).toMatchObject({ accepted: 7, duplicates: 0 });
    expect((await post('/events', sdkBatch.slice(0, 3))).body).toMatchObject({ accepted: 0, duplicates: 3 });
    // A direct call (no library), and a batch refused whole: each of its 4 events is counted as rejected.
    expect((await post('/events', [event(), event()])).status).toBe(200);
    expect((await post('/events', [event(), event(), event({ timestamp: 'not a time' }), event()])).status).toBe(400);
    // Refused for personal data in a name: also a validation refusal.
    expect((await post('/events', event({ event: 'jane@example.com' }))).status).toBe(400);
    // A library we do not know is "other": a sender cannot grow the set of names.
    expect((await post('/events', [event(fromLibrary('home-made'))])).status).toBe(200);

    // Segment: the invalid messages are skipped and counted, the valid ones stored.
    const segment = await post('/batch', {
      batch: [
        { type: 'track', event: 'opened', userId: 'u1', messageId: randomUUID(), ...fromLibrary('analytics-kotlin') },
        { type: 'track', event: 'opened', userId: 'u1', messageId: randomUUID() },
        { type: 'track', userId: 'u1', messageId: randomUUID() },
      ],
    });
    expect(segment.body).toMatchObject({ accepted: 2, rejected: 1 });
    // A Segment body refused whole (the batch is not a list of messages).
    expect((await post('/batch', { batch: 'nothing', ...fromLibrary('analytics-kotlin') })).status).toBe(400);

    expect(await totals(t.org.token.secret)).toEqual({
      '@foresight/node': { accepted: 7, duplicates: 3, rejected: 0 },
      direct: { accepted: 2, duplicates: 0, rejected: 5 },
      other: { accepted: 1, duplicates: 0, rejected: 0 },
      'analytics-kotlin': { accepted: 2, duplicates: 0, rejected: 2 },
    });
    expect(await totals(t.org.token.secret, 'bucket=day')).toEqual(await totals(t.org.token.secret));
  });

  it('answers buckets in the window, oldest first, with the asked window echoed', async () => {
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const answer = await request<{ bucket: string; since: string; until: string; series: IngestionPoint[] }>(url(`/events/ingestion?bucket=hour&until=${until}`), {
      token: t.org.token.secret,
    });
    expect(answer.body).toMatchObject({ bucket: 'hour', until });
    const starts = answer.body.series.map((point) => point.start);
    expect(starts.length).toBeGreaterThan(0);
    expect([...starts].sort()).toEqual(starts);
    for (const start of starts) expect(new Date(start).getUTCMinutes()).toBe(0);
    // A window before anything arrived is empty.
    const earlier = await request<{ series: unknown[] }>(url('/events/ingestion?bucket=day&since=2020-01-01T00:00:00Z&until=2020-02-01T00:00:00Z'), { token: t.org.token.secret });
    expect(earlier.body.series).toEqual([]);
  });

  it('validates the query like the volume route', async () => {
    for (const query of ['bucket=minute', `since=${new Date(Date.now() - 40 * 86_400_000).toISOString()}`, 'since=yesterday', 'since=2020-02-01T00:00:00Z&until=2020-01-01T00:00:00Z', 'extra=1']) {
      expect(await request(url(`/events/ingestion?${query}`), { token: t.org.token.secret })).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    }
  });

  it("keeps each organization's counters to itself and needs the read scope", async () => {
    await post('/events', [event(), event()], other.token.secret);
    expect(await totals(other.token.secret)).toEqual({ direct: { accepted: 2, duplicates: 0, rejected: 0 } });
    expect((await totals(t.org.token.secret)).direct).toEqual({ accepted: 2, duplicates: 0, rejected: 5 });

    const ingestOnly = await request<{ token: string }>(url('/tokens'), { token: t.org.token.secret, method: 'POST', body: { environment: 'prod', scopes: ['ingest'] } });
    expect(await request(url('/events/ingestion'), { token: ingestOnly.body.token })).toMatchObject({ status: 403, body: { error: 'insufficient_scope' } });
    expect((await request(url('/events/ingestion'), {})).status).toBe(401);
  });

  it('counts events stored by `demo seed`, which writes through the CLI and no HTTP route', async () => {
    const seeded = await t.suite.createOrganization('ingestion_seeded');
    const result = await cliJson<{ accepted: number; duplicates: number }>(t.suite.env, ['demo', 'seed', '--org', seeded.organization.id, '--users', '20', '--days', '7']);
    expect(result.accepted).toBeGreaterThan(0);
    expect(await totals(seeded.token.secret)).toEqual({ 'demo seed': { accepted: result.accepted, duplicates: 0, rejected: 0 } });
    const again = await cliJson<{ accepted: number; duplicates: number }>(t.suite.env, ['demo', 'seed', '--org', seeded.organization.id, '--users', '20', '--days', '7']);
    expect(await totals(seeded.token.secret)).toEqual({ 'demo seed': { accepted: result.accepted, duplicates: again.duplicates, rejected: 0 } });
  });
});
