import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { cliJson, runCli, type RunningProcess, startWorker } from '../support/processes';
import { withApiSuite } from '../support/suite';
import { learnablePopulation, promotionRunsDone, sendEvents, settledModel, type TestEvent } from '../support/training';

const DAY = 86_400_000;

/**
 * Every user adds to cart alike (same days, same counts); the `items` property tells the 30% who
 * buy apart (4 to 7 items at a time, the others 1 or 2), long before their rare checkouts do.
 */
function cartPopulation(users: number, days: number): TestEvent[] {
  let state = 5;
  const random = () => ((state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32);
  const now = Date.now();
  const events: TestEvent[] = [];
  for (let u = 0; u < users; u++) {
    const buyer = random() < 0.3;
    for (let day = days; day >= 1; day--) {
      if (random() > 0.4) continue;
      const start = now - day * DAY + random() * 3600_000;
      for (let k = 0; k < 3; k++) {
        const items = buyer ? 4 + Math.floor(random() * 4) : 1 + Math.floor(random() * 2);
        events.push({ event: 'add_to_cart', userId: `cart-${u}`, timestamp: new Date(start + k * 60_000).toISOString(), properties: { items, sku: `sku-${k}` } });
      }
      if (random() < (buyer ? 0.15 : 0.02)) events.push({ event: 'checkout', userId: `cart-${u}`, timestamp: new Date(start + 5 * 60_000).toISOString() });
    }
  }
  return events;
}

describe('training runs in the worker', () => {
  const t = withApiSuite('training');
  let worker: RunningProcess;

  beforeAll(async () => {
    await sendEvents(t.api.baseUrl, t.org.token.secret, learnablePopulation(400, 100));
    worker = await startWorker(t.suite.env);
  });

  afterAll(async () => {
    await worker?.stop();
  });

  const admin = () => ({ token: t.org.token.secret });
  const create = (body: Record<string, unknown>) => request<{ id: string }>(`${t.api.baseUrl}/v1/models`, { ...admin(), method: 'POST', body });
  const retrain = (modelId: string) =>
    request<{ startedAt: string; status: string }>(`${t.api.baseUrl}/v1/models/retrain`, { ...admin(), method: 'POST', body: { modelId } });
  const settled = (modelId: string) => settledModel(t.api.baseUrl, t.org.token.secret, modelId, worker);

  it.each(['gbdt', 'logistic'])('trains a %s model to active with metrics and feature importance', async (algorithm) => {
    const model = await create({ name: `checkout_${algorithm}`, targetEvent: 'checkout', horizonDays: 7, algorithm });
    const first = await retrain(model.body.id);
    expect(first.body.status).toBe('retraining');
    expect((await retrain(model.body.id)).body.startedAt).toBe(first.body.startedAt);

    const details = await settled(model.body.id);
    expect(details).toMatchObject({ status: 'active', version: 1, lastError: null, algorithm });
    for (const metric of ['accuracy', 'precision', 'recall', 'auc'] as const) {
      expect(details[metric]).toEqual(expect.any(Number));
      expect(details[metric] as number).toBeGreaterThanOrEqual(0);
      expect(details[metric] as number).toBeLessThanOrEqual(1);
    }
    expect(details.auc as number).toBeGreaterThan(0.6); // the pricing signal is learnable
    const importance = details.featureImportance as Array<{ feature: string; weight: number }>;
    expect(importance.reduce((sum, f) => sum + f.weight, 0)).toBeCloseTo(1, 5);
    expect(details.lastRetrained).toEqual(expect.stringMatching(/Z$/));

    const versions = await t.suite.sql<{ version: number; state: string; bytes: number }>(
      `SELECT version, state, length(onnx) AS bytes FROM model_versions WHERE model_id = $1`,
      [model.body.id],
    );
    expect(versions).toEqual([{ version: 1, state: 'serving', bytes: expect.any(Number) }]);
  });

  it('creates and retrains a model from the CLI', async () => {
    const created = await cliJson<{ model: { id: string; status: string } }>(t.suite.env, [
      'model', 'create', '--org', t.org.organization.id, '--name', 'cli_checkout', '--target', 'checkout', '--algorithm', 'logistic',
    ]);
    expect(created.model.status).toBe('untrained');
    const started = await cliJson<{ status: string }>(t.suite.env, ['model', 'retrain', '--org', t.org.organization.id, '--model', created.model.id]);
    expect(started.status).toBe('retraining');
    expect(await settled(created.model.id)).toMatchObject({ status: 'active', version: 1 });
    const listed = await cliJson<{ models: Array<{ id: string; auc: number }> }>(t.suite.env, ['model', 'list', '--org', t.org.organization.id]);
    expect(listed.models.find((m) => m.id === created.model.id)?.auc).toEqual(expect.any(Number));
    const unknownOrg = await runCli(t.suite.env, ['model', 'create', '--org', 'org_nope', '--name', 'x_model', '--target', 'checkout']);
    expect(unknownOrg.code).not.toBe(0);
    expect(unknownOrg.stderr).toContain('organization org_nope not found');
  });

  it('learns from a numeric custom property: kept in clear beside the sealed properties, chosen from the data, in the manifest', async () => {
    const shop = await t.suite.createOrganization('shop');
    const shopToken = { token: shop.token.secret };
    await sendEvents(t.api.baseUrl, shop.token.secret, cartPopulation(300, 60));
    const [stored] = await t.suite.sql<{ numeric_properties: unknown; properties: string }>(
      `SELECT numeric_properties, properties FROM events WHERE organization_id = $1 AND event = 'add_to_cart' LIMIT 1`,
      [shop.organization.id],
    );
    expect(stored.numeric_properties).toEqual({ items: expect.any(Number) }); // the string sku stays sealed only
    expect(stored.properties).not.toContain('sku');
    // A key jsonb cannot hold (an unpaired surrogate) is accepted as before and stays sealed only.
    await sendEvents(t.api.baseUrl, shop.token.secret, [{ event: 'add_to_cart', userId: 'cart-odd', messageId: 'odd-key', properties: { 'odd\uD800': 1, items: 2 } }]);
    const [odd] = await t.suite.sql<{ numeric_properties: unknown }>(`SELECT numeric_properties FROM events WHERE organization_id = $1 AND message_id = 'odd-key'`, [shop.organization.id]);
    expect(odd.numeric_properties).toEqual({ items: 2 });

    const model = await request<{ id: string }>(`${t.api.baseUrl}/v1/models`, { ...shopToken, method: 'POST', body: { name: 'cart_checkout', targetEvent: 'checkout', horizonDays: 7 } });
    await request(`${t.api.baseUrl}/v1/models/retrain`, { ...shopToken, method: 'POST', body: { modelId: model.body.id } });
    const details = await settledModel(t.api.baseUrl, shop.token.secret, model.body.id, worker);
    expect(details.status).toBe('active');
    const [version] = await t.suite.sql<{ manifest: { trackedProperties: unknown; names: string[] } }>(`SELECT manifest FROM model_versions WHERE model_id = $1`, [model.body.id]);
    expect(version.manifest.trackedProperties).toEqual([{ event: 'add_to_cart', key: 'items' }]);
    expect(version.manifest.names).toEqual(expect.arrayContaining(['property_sum_30d:add_to_cart/items', 'property_mean_30d:add_to_cart/items']));
    // Cart counts are alike for everyone and checkouts are rare: the property carries most of what the model learned.
    const importance = details.featureImportance as Array<{ feature: string; weight: number }>;
    const propertyWeight = importance.filter((f) => f.feature.startsWith('property_')).reduce((sum, f) => sum + f.weight, 0);
    expect(propertyWeight).toBeGreaterThan(0.5);
    expect(details.auc as number).toBeGreaterThan(0.7);
  });

  it('trains and serves despite quantities no float32 holds, sent with an ingest-only token; another organization is unaffected', async () => {
    const [hostile, bystander] = await Promise.all([t.suite.createOrganization('hostile-shop'), t.suite.createOrganization('bystander-shop')]);
    const population = cartPopulation(300, 60);
    await sendEvents(t.api.baseUrl, hostile.token.secret, population);
    await sendEvents(t.api.baseUrl, bystander.token.secret, population);
    // What anyone holding a web page's ingest token can send: finite doubles, infinite as float32 (or summed as doubles).
    const ingest = await request<{ token: string }>(`${t.api.baseUrl}/v1/tokens`, { token: hostile.token.secret, method: 'POST', body: { environment: 'prod', scopes: ['ingest'] } });
    const extremes = [1e39, -1e39, Number.MAX_VALUE, 1e308, -Number.MAX_VALUE];
    const users = Array.from({ length: 40 }, (_, u) => `cart-${u}`);
    const hostileEvents = users.flatMap((userId, u) =>
      [45, 30, 22, 15, 9, 2].map((daysAgo, k) => ({
        event: 'add_to_cart',
        userId,
        timestamp: new Date(Date.now() - daysAgo * DAY + u * 1000).toISOString(),
        properties: { quantity: extremes[(u + k) % extremes.length], items: 1 },
      })),
    );
    await sendEvents(t.api.baseUrl, ingest.body.token, hostileEvents);
    const [stored] = await t.suite.sql<{ n: string }>(
      `SELECT count(*) AS n FROM events WHERE organization_id = $1 AND (numeric_properties->>'quantity')::numeric = 1e39`,
      [hostile.organization.id],
    );
    expect(Number(stored.n)).toBeGreaterThan(0); // accepted and stored as sent

    const train = async (shop: typeof hostile, body: Record<string, unknown>) => {
      const model = await request<{ id: string }>(`${t.api.baseUrl}/v1/models`, { token: shop.token.secret, method: 'POST', body: { targetEvent: 'checkout', horizonDays: 7, ...body } });
      await request(`${t.api.baseUrl}/v1/models/retrain`, { token: shop.token.secret, method: 'POST', body: { modelId: model.body.id } });
      return model.body.id;
    };
    const trained = [
      { shop: hostile, id: await train(hostile, { name: 'hostile_gbdt', algorithm: 'gbdt' }) },
      { shop: hostile, id: await train(hostile, { name: 'hostile_logistic', algorithm: 'logistic' }) },
      { shop: bystander, id: await train(bystander, { name: 'bystander_gbdt', algorithm: 'gbdt' }) },
    ];
    for (const { shop, id } of trained) {
      const details = await settledModel(t.api.baseUrl, shop.token.secret, id, worker);
      expect(details).toMatchObject({ status: 'active', lastError: null });
      expect(details.auc as number).toBeGreaterThan(0.7); // the items property is still learnable beside the extremes
    }
    const [version] = await t.suite.sql<{ names: string[] }>(`SELECT manifest->'names' AS names FROM model_versions WHERE model_id = $1`, [trained[0].id]);
    expect(version.names).toContain('property_sum_30d:add_to_cart/quantity');

    // Bulk scoring and on-demand serving read the same bounded features: every hostile user gets a prediction of each model.
    await promotionRunsDone(t.suite, hostile.organization.id);
    for (const userId of users.slice(0, extremes.length)) {
      const served = await eventually(`both models to serve ${userId}`, async () => {
        const answer = await request<{ predictions: Array<{ confidence: number }> }>(`${t.api.baseUrl}/v1/predict?userId=${userId}`, { token: hostile.token.secret });
        return answer.status === 200 && answer.body.predictions.length === 2 ? answer.body.predictions : undefined;
      });
      for (const prediction of served) expect(prediction.confidence).toBeGreaterThanOrEqual(0.5);
      for (const prediction of served) expect(prediction.confidence).toBeLessThanOrEqual(1);
    }
  });

  it('ends failed with a clear lastError when there is too little data', async () => {
    const model = await create({ name: 'rare_event', targetEvent: 'never_happens' });
    await retrain(model.body.id);
    const details = await settled(model.body.id);
    expect(details.status).toBe('failed');
    expect(details.lastError).toBe('needs at least 50 users who did "never_happens" within 7 days after a training cutoff; found 0');
  });
});
