import { Queue } from 'bullmq';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { type RunningProcess, startApi, startWorker } from '../support/processes';
import { queuedWorkDone } from '../support/queues';
import { type OrganizationWithToken, TestSuite } from '../support/suite';
import { learnablePopulation, promotionRunsDone, sendEvents, settledModel, type TestEvent } from '../support/training';
import { Receiver, type WebhookBody } from '../support/webhook-receiver';

const DAY = 86_400_000;
/** More than one webhook batch (1,000 user ids) of members. */
const USERS = 1_150;
/** A user with a logged prediction but no events: bulk scoring runs never score them. */
const UNSCORED_USER = 'unscored-user';

interface AudienceView {
  id: string;
  size: number | null;
  computedAt: string | null;
  precision: number | null;
  recall: number | null;
  history: Array<{ runId: string; size: number; entered: number; left: number; computedAt: string }>;
}

interface Member {
  userId: string;
  confidence: number;
  since: string;
}

type Rule = { minConfidence: number } | { topPercent: number };

/** Five long looks at pricing every day over the last `days` days: what makes a user most likely to view pricing again. */
function pricingLooks(userId: string, days: number): TestEvent[] {
  const events: TestEvent[] = [];
  for (let day = days; day >= 0; day--) {
    const start = Date.now() - day * DAY - 3600_000;
    for (let k = 0; k < 5; k++) events.push({ event: 'screen_view', userId, timestamp: new Date(start + k * 60_000).toISOString(), properties: { screen: 'pricing', dwellMs: 8000 } });
  }
  return events;
}

describe('audiences', () => {
  let suite: TestSuite;
  let org: OrganizationWithToken;
  let other: OrganizationWithToken;
  let api: RunningProcess;
  let worker: RunningProcess;
  let receiver: Receiver;
  let env: Record<string, string>;
  let modelId: string;
  let otherModelId: string;
  /** Everyone but the most likely to view pricing: more than one batch of members. */
  let broad: string;
  /** The 5% most likely to view pricing. */
  let top: string;
  let manualRun: string;

  const token = () => org.token.secret;
  const api$ = (path: string) => `${api.baseUrl}${path}`;

  /**
   * What the audience's rule selects, worked out here from the prediction log's rows themselves: the
   * users scored by the model's latest completed bulk scoring run or since its cutoff.
   */
  async function expectedMembers(label: string, rule: Rule): Promise<Map<string, number>> {
    const [{ cutoff }] = await suite.sql<{ cutoff: Date }>(
      `SELECT max(cutoff) AS cutoff FROM scoring_runs WHERE organization_id = $1 AND state = 'completed' AND $2 = ANY(model_ids)`,
      [org.organization.id, modelId],
    );
    expect(cutoff).toBeInstanceOf(Date);
    const rows = await suite.sql<{ user_id: string; label: string; confidence: number; at: string; id: string }>(
      `SELECT user_id, label, confidence, to_char(predicted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS at, id::text
         FROM predictions WHERE organization_id = $1 AND model_id = $2 AND predicted_at >= $3`,
      [org.organization.id, modelId, cutoff],
    );
    const latest = new Map<string, (typeof rows)[number]>();
    const later = (a: (typeof rows)[number], b: (typeof rows)[number]) => a.at > b.at || (a.at === b.at && BigInt(a.id) > BigInt(b.id));
    for (const row of rows) {
      const seen = latest.get(row.user_id);
      if (!seen || later(row, seen)) latest.set(row.user_id, row);
    }
    const probabilities = [...latest.values()].map((row) => ({ userId: row.user_id, p: row.label === label ? row.confidence : 1 - row.confidence }));
    if ('minConfidence' in rule) return new Map(probabilities.filter(({ p }) => p >= rule.minConfidence).map(({ userId, p }) => [userId, p]));
    probabilities.sort((a, b) => b.p - a.p || (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));
    const count = Math.ceil((probabilities.length * rule.topPercent) / 100);
    return new Map(probabilities.slice(0, count).map(({ userId, p }) => [userId, p]));
  }

  async function audience(id: string, who = token()): Promise<AudienceView> {
    const response = await request<AudienceView>(api$(`/v1/audiences/${id}`), { token: who });
    expect(response.status).toBe(200);
    return response.body;
  }

  /** Every member through the JSON pages, following the Link headers. */
  async function pagedMembers(id: string, limit: number): Promise<{ members: Member[]; pages: number }> {
    const members: Member[] = [];
    let url: string | undefined = api$(`/v1/audiences/${id}/members?limit=${limit}`);
    let pages = 0;
    while (url) {
      const page: { status: number; headers: Headers; body: Member[] } = await request<Member[]>(url, { token: token() });
      expect(page.status).toBe(200);
      expect(page.body.length).toBeLessThanOrEqual(limit);
      members.push(...page.body);
      pages += 1;
      url = /<([^>]+)>; rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
    }
    return { members, pages };
  }

  const deliveries = (type: string, audienceId: string, runId: string): WebhookBody[] =>
    receiver.bodies().filter((body) => body.type === type && body.data.audienceId === audienceId && body.data.runId === runId);
  const deliveredUsers = (bodies: WebhookBody[]) => bodies.flatMap((body) => body.data.userIds as string[]);

  async function computedFor(id: string, runId: string): Promise<AudienceView> {
    return eventually(`audience ${id} computed for ${runId}`, async () => {
      const details = await audience(id);
      return details.history.some((entry) => entry.runId === runId) ? details : undefined;
    }, 120_000);
  }

  beforeAll(async () => {
    suite = await TestSuite.create('audiences');
    org = await suite.createOrganization('audiences', ['--rate-limit', '100000', '--burst', '200000']);
    other = await suite.createOrganization('audiences_other', ['--rate-limit', '100000', '--burst', '200000']);
    env = { ...suite.env, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_RETRY_SCHEDULE: '1s' };
    api = await startApi(env);
    await sendEvents(api.baseUrl, token(), learnablePopulation(USERS, 30, { intentShiftDays: 14 }));
    await sendEvents(api.baseUrl, other.token.secret, learnablePopulation(100, 30, { intentShiftDays: 14, seed: 5 }));
    worker = await startWorker(env);
    for (const [who, set] of [[org, (id: string) => (modelId = id)], [other, (id: string) => (otherModelId = id)]] as const) {
      const model = await request<{ id: string }>(api$('/v1/models'), {
        token: who.token.secret, method: 'POST', body: { name: 'pricing_view_7d', targetEvent: 'screen_view', horizonDays: 7, algorithm: 'logistic' },
      });
      set(model.body.id);
      await request(api$('/v1/models/retrain'), { token: who.token.secret, method: 'POST', body: { modelId: model.body.id } });
    }
    expect(await settledModel(api.baseUrl, token(), modelId, worker)).toMatchObject({ status: 'active' });
    expect(await settledModel(api.baseUrl, other.token.secret, otherModelId, worker)).toMatchObject({ status: 'active' });
    await promotionRunsDone(suite, org.organization.id);
    receiver = await Receiver.start(() => 200);
    const hook = await request(api$('/v1/webhooks'), { token: token(), method: 'POST', body: { url: receiver.url, events: ['audience.entered', 'audience.left'] } });
    expect(hook.status).toBe(200);
  }, 400_000);

  afterAll(async () => {
    await Promise.all([api?.stop(), worker?.stop(), receiver?.close()]);
    await suite?.destroy();
  });

  it('refuses a bad definition with the contract error, and a model that is not the organization’s with a 404', async () => {
    const create = (body: unknown, who = token()) => request(api$('/v1/audiences'), { token: who, method: 'POST', body });
    const valid = { name: 'likely viewers', modelId: '', label: 'likely', rule: { minConfidence: 0.5 } };
    for (const [body, path] of [
      [{ ...valid, modelId: 'x', rule: { minConfidence: 1.5 } }, 'rule'],
      [{ ...valid, modelId: 'x', rule: { topPercent: 0 } }, 'rule'],
      [{ ...valid, modelId: 'x', rule: { minConfidence: 0.5, topPercent: 10 } }, 'rule'],
      [{ ...valid, modelId: 'x', rule: {} }, 'rule'],
      [{ ...valid, modelId: 'x', name: '' }, 'name'],
      [{ ...valid, modelId: 'x', extra: true }, ''],
    ] as const) {
      const refused = await create(body);
      expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_request', message: expect.any(String) } });
      expect((refused.body as { details: Array<{ path: string }> }).details.map((d) => d.path).join(' ')).toContain(path);
    }
    expect(await create({ ...valid, modelId, label: 'maybe' })).toMatchObject({ status: 400, body: { error: 'invalid_request', details: [{ path: 'label' }] } });
    for (const unknown of ['mdl_0000000000000000', otherModelId]) {
      expect(await create({ ...valid, modelId: unknown })).toMatchObject({ status: 404, body: { error: 'not_found' } });
    }
    const reader = await request<{ token: string }>(api$('/v1/tokens'), { token: token(), method: 'POST', body: { environment: 'dev', scopes: ['read'] } });
    expect(await create({ ...valid, modelId }, reader.body.token)).toMatchObject({ status: 403, body: { error: 'insufficient_scope' } });
    expect(await suite.sql(`SELECT 1 FROM audiences`)).toEqual([]);
  });

  it("holds exactly the users whose latest logged probability matches the rule, by threshold and by top percent, announced in batches of at most 1,000", async () => {
    const made: Record<string, string> = {};
    for (const [name, label, rule] of [
      ['not viewing pricing', 'unlikely', { minConfidence: 0.02 }],
      ['top pricing viewers', 'likely', { topPercent: 5 }],
    ] as const) {
      const created = await request<{ id: string; size: number | null; rule: Rule }>(api$('/v1/audiences'), { token: token(), method: 'POST', body: { name, modelId, label, rule } });
      expect(created).toMatchObject({ status: 200, body: { id: expect.stringMatching(/^aud_[a-z0-9]{16}$/), name, modelId, label, rule, size: null } });
      made[name] = created.body.id;
    }
    broad = made['not viewing pricing'];
    top = made['top pricing viewers'];

    for (const [id, label, rule] of [[broad, 'unlikely', { minConfidence: 0.02 }], [top, 'likely', { topPercent: 5 }]] as const) {
      const details = await computedFor(id, id);
      const expected = await expectedMembers(label, rule);
      expect(expected.size).toBeGreaterThan(0);
      expect(details).toMatchObject({ size: expected.size, computedAt: expect.any(String), history: [{ runId: id, size: expected.size, entered: expected.size, left: 0 }] });
      expect(details.precision).toEqual(expect.any(Number));
      expect(details.recall).toEqual(expect.any(Number));
      const { members, pages } = await pagedMembers(id, 400);
      expect(pages).toBe(Math.max(1, Math.ceil(expected.size / 400)));
      expect(new Map(members.map((m) => [m.userId, m.confidence]))).toEqual(expected);
      expect(members.length).toBe(expected.size);
      // The first computation announces every member, in user id order, in batches of at most 1,000.
      const entered = await eventually('the first entries delivered', () => {
        const bodies = deliveries('audience.entered', id, id);
        return deliveredUsers(bodies).length >= expected.size ? bodies : undefined;
      });
      // Delivered side by side, so in any order: numbered from 0.
      entered.sort((a, b) => (a.data.batch as number) - (b.data.batch as number));
      expect(entered.map((body) => body.data.batch)).toEqual(entered.map((_, i) => i));
      expect(entered.map((body) => (body.data.userIds as string[]).length)).toEqual(
        Array.from({ length: Math.ceil(expected.size / 1000) }, (_, i) => Math.min(1000, expected.size - i * 1000)),
      );
      expect(deliveredUsers(entered).sort()).toEqual([...expected.keys()].sort());
    }
    expect((await audience(top)).size).toBe(Math.ceil(((await expectedMembers('likely', { minConfidence: 0 })).size * 5) / 100));
    expect((await audience(broad)).size).toBeGreaterThan(1000);
  }, 180_000);

  it('streams members as NDJSON and CSV', async () => {
    const { size } = await audience(top);
    const ndjson = await fetch(api$(`/v1/audiences/${top}/members`), { headers: { authorization: `Bearer ${token()}`, accept: 'application/x-ndjson' } });
    expect(ndjson.headers.get('content-type')).toContain('application/x-ndjson');
    const rows = (await ndjson.text()).trim().split('\n').map((line) => JSON.parse(line) as Member);
    expect(rows).toHaveLength(size as number);
    const csv = await fetch(api$(`/v1/audiences/${top}/members`), { headers: { authorization: `Bearer ${token()}`, accept: 'text/csv' } });
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const lines = (await csv.text()).trim().split('\n');
    expect(lines[0]).toBe('userId,confidence,since');
    expect(lines.slice(1).map((line) => line.split(',')[0].replaceAll('"', '')).sort()).toEqual(rows.map((row) => row.userId).sort());
    expect(lines.slice(1).map((line) => Number(line.split(',')[1]))).toEqual(rows.map((row) => row.confidence));
    const badCursor = await request(api$(`/v1/audiences/${top}/members?cursor=bm90LWEtY3Vyc29y`), { token: token() });
    expect(badCursor).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });

  it('recomputes with the next bulk scoring run and announces who entered and who left once, even when the job runs again', async () => {
    const before = new Set((await pagedMembers(top, 100_000)).members.map((m) => m.userId));
    // The users least likely to view pricing start to view it every day: they rise into the top 5%, pushing others out.
    const risers = [...(await expectedMembers('unlikely', { topPercent: 1 })).keys()];
    await sendEvents(api.baseUrl, token(), risers.flatMap((userId) => pricingLooks(userId, 10)));
    // Their re-scoring after the new events is over before the run (so the log the test reads is the one the run's job read).
    await queuedWorkDone(env, ['user-activity'], () => true);
    // A user logged as sure to view pricing whom the run does not score (no events in its window): not a scored user any more.
    await suite.sql(
      `INSERT INTO predictions (organization_id, user_id, model_id, model_name, version_id, version, label, positive, confidence, inference_ms, predicted_at)
       SELECT organization_id, $3, model_id, model_name, version_id, version, 'likely', true, 0.999, inference_ms, now() FROM predictions
        WHERE organization_id = $1 AND model_id = $2 LIMIT 1`,
      [org.organization.id, modelId, UNSCORED_USER],
    );
    const run = await request<{ id: string }>(api$(`/v1/models/${modelId}/score`), { token: token(), method: 'POST' });
    expect(run.status).toBe(202);
    manualRun = run.body.id;

    const details = await computedFor(top, manualRun);
    const after = await expectedMembers('likely', { topPercent: 5 });
    const members = (await pagedMembers(top, 100_000)).members;
    expect(new Map(members.map((m) => [m.userId, m.confidence]))).toEqual(after);
    expect(members.map((m) => m.userId)).not.toContain(UNSCORED_USER);
    const entered = [...after.keys()].filter((user) => !before.has(user)).sort();
    const left = [...before].filter((user) => !after.has(user)).sort();
    expect(entered.length).toBeGreaterThan(0);
    expect(left.length).toBeGreaterThan(0);
    expect(details.history.map((entry) => entry.runId)).toEqual([top, manualRun]);
    expect(details.history[1]).toMatchObject({ size: after.size, entered: entered.length, left: left.length });
    // A member who stayed keeps the time they entered.
    const stayed = members.find((m) => before.has(m.userId));
    expect(stayed && Date.parse(stayed.since)).toBeLessThan(Date.parse(details.history[1].computedAt));

    await computedFor(broad, manualRun);
    await queuedWorkDone(env, ['predictions', 'domain-events', 'webhooks'], () => true);
    const delivered = receiver.bodies().length;
    expect(deliveredUsers(deliveries('audience.entered', top, manualRun)).sort()).toEqual(entered);
    expect(deliveredUsers(deliveries('audience.left', top, manualRun)).sort()).toEqual(left);

    // The job runs again after BullMQ forgot the announcements (a resumed job, days later): nothing is computed or sent twice.
    const connection = { connection: { url: env.REDIS_URL }, prefix: `${env.REDIS_PREFIX}bull` };
    const domainEvents = new Queue('domain-events', connection);
    const predictions = new Queue('predictions', connection);
    try {
      await domainEvents.clean(0, 100_000, 'completed');
      await predictions.add('predictions.recompute-audiences', { organizationId: org.organization.id, runId: manualRun }, { jobId: `again-${manualRun}` });
      await eventually('the repeated job to finish', async () => ((await predictions.getJob(`again-${manualRun}`))?.finishedOn ? true : undefined));
    } finally {
      await Promise.all([domainEvents.close(), predictions.close()]);
    }
    await queuedWorkDone(env, ['domain-events', 'webhooks'], () => true);
    expect(receiver.bodies().length).toBe(delivered);
    expect((await audience(top)).history).toHaveLength(2);
    const ids = receiver.bodies().map((body) => body.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(Math.max(...receiver.bodies().map((body) => (body.data.userIds as string[]).length))).toBeLessThanOrEqual(1000);
  }, 240_000);

  it('announces a computation whose job died before announcing it before the next run forgets who left with it', async () => {
    const left = deliveredUsers(deliveries('audience.left', top, manualRun)).sort();
    expect(left.length).toBeGreaterThan(0);
    // As if the job of the run died after computing: nothing of it published, nothing marked, BullMQ's record gone.
    await suite.sql(`UPDATE audience_sizes SET announced_at = NULL WHERE organization_id = $1 AND audience_id = $2 AND run_id = $3`, [org.organization.id, top, manualRun]);
    await suite.sql(`DELETE FROM webhook_deliveries WHERE organization_id = $1 AND payload->'data'->>'runId' = $2 AND payload->'data'->>'audienceId' = $3`, [org.organization.id, manualRun, top]);
    const connection = { connection: { url: env.REDIS_URL }, prefix: `${env.REDIS_PREFIX}bull` };
    const domainEvents = new Queue('domain-events', connection);
    try {
      await domainEvents.clean(0, 100_000, 'completed');
    } finally {
      await domainEvents.close();
    }
    const before = receiver.bodies().length;

    const next = await request<{ id: string }>(api$(`/v1/models/${modelId}/score`), { token: token(), method: 'POST' });
    expect(next.status).toBe(202);
    await computedFor(top, next.body.id);
    await queuedWorkDone(env, ['predictions', 'domain-events', 'webhooks'], () => true);
    const again = receiver.bodies().slice(before).filter((body) => body.type === 'audience.left' && body.data.audienceId === top && body.data.runId === manualRun);
    expect(deliveredUsers(again).sort()).toEqual(left);
    expect(await suite.sql(`SELECT run_id FROM audience_sizes WHERE organization_id = $1 AND audience_id = $2 AND announced_at IS NULL`, [org.organization.id, top])).toEqual([]);
  }, 240_000);

  it("keeps one organization's audiences from another", async () => {
    const theirs = other.token.secret;
    expect((await request<unknown[]>(api$('/v1/audiences'), { token: theirs })).body).toEqual([]);
    expect((await request<Array<{ id: string }>>(api$('/v1/audiences'), { token: token() })).body.map((a) => a.id)).toEqual([broad, top]);
    for (const [path, method] of [
      [`/v1/audiences/${top}`, 'GET'],
      [`/v1/audiences/${top}/members`, 'GET'],
      [`/v1/audiences/${top}`, 'DELETE'],
    ] as const) {
      expect(await request(api$(path), { token: theirs, method })).toMatchObject({ status: 404, body: { error: 'not_found' } });
    }
    expect((await audience(top)).size).toBeGreaterThan(0);
  });

  it('erasure removes the user from every audience, and from the audience batches kept in the delivery log, at once', async () => {
    // A member of both audiences.
    const [{ user_id: member }] = await suite.sql<{ user_id: string }>(
      `SELECT user_id FROM audience_members WHERE organization_id = $1 AND left_run IS NULL GROUP BY user_id HAVING count(*) = 2 ORDER BY user_id LIMIT 1`,
      [org.organization.id],
    );
    for (const id of [top, broad]) expect((await pagedMembers(id, 100_000)).members.map((m) => m.userId)).toContain(member);
    const erased = await request(api$(`/v1/users?userId=${encodeURIComponent(member)}`), { token: token(), method: 'DELETE' });
    expect(erased).toMatchObject({ status: 200, body: { status: 'deleted' } });
    expect(await suite.sql(`SELECT 1 FROM audience_members WHERE user_id = $1`, [member])).toEqual([]);
    // The delivered batches that named the user no longer do; the other users of those batches stay.
    expect(await suite.sql(`SELECT id FROM webhook_deliveries WHERE jsonb_exists(payload->'data'->'userIds', $1)`, [member])).toEqual([]);
    expect(receiver.bodies().some((body) => (body.data.userIds as string[] | undefined)?.includes(member))).toBe(true);
    for (const id of [top, broad]) expect((await pagedMembers(id, 100_000)).members.map((m) => m.userId)).not.toContain(member);
  });

  it('deletes an audience with its members and history, and audits creation and deletion', async () => {
    expect(await request(api$(`/v1/audiences/${broad}`), { token: token(), method: 'DELETE' })).toMatchObject({ status: 200, body: { status: 'deleted', audienceId: broad } });
    expect(await request(api$(`/v1/audiences/${broad}`), { token: token() })).toMatchObject({ status: 404, body: { error: 'not_found' } });
    expect(await suite.sql(`SELECT 1 FROM audience_members WHERE audience_id = $1 UNION ALL SELECT 1 FROM audience_sizes WHERE audience_id = $1`, [broad])).toEqual([]);
    for (const [action, targets] of [['audience.create', [top, broad]], ['audience.delete', [broad]]] as const) {
      const audit = await request<{ entries: Array<{ target: string }> }>(api$(`/v1/audit?action=${action}`), { token: token() });
      expect(audit.body.entries.map((entry) => entry.target).sort()).toEqual([...targets].sort());
    }
  });
});
