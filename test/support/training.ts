import type { DataSource } from 'typeorm';
import { eventually } from './eventually';
import { type JsonResponse, request } from './http';
import type { RunningProcess } from './processes';
import type { TestSuite } from './suite';
import type { Answers } from './traffic';

const DAY = 86_400_000;

export type TestEvent = Record<string, unknown>;

/**
 * A small learnable population: each user has a propensity; likely buyers view pricing and add to
 * cart more often, and check out more often. Users are `${prefix}${index}`; `buyerShare` (0.35 by
 * default) changes the behavior mix, e.g. for a shifted population. With `intentShiftDays`, a user's
 * propensity is drawn again on any day with probability 1 / intentShiftDays, so what a user did
 * lately says more about the coming week than the month before; without it, it never changes.
 * Events end `now` (default: the present).
 */
export function learnablePopulation(
  users: number,
  days: number,
  options: { seed?: number; prefix?: string; buyerShare?: number; intentShiftDays?: number; now?: number } = {},
): TestEvent[] {
  let state = options.seed ?? 11;
  const prefix = options.prefix ?? 'user-';
  const buyerShare = options.buyerShare ?? 0.35;
  const random = () => ((state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32);
  const drawPropensity = () => (random() < buyerShare ? 0.6 : 0.05);
  const now = options.now ?? Date.now();
  const events: TestEvent[] = [];
  for (let u = 0; u < users; u++) {
    let propensity = drawPropensity();
    for (let day = days; day >= 1; day--) {
      if (options.intentShiftDays !== undefined && random() < 1 / options.intentShiftDays) propensity = drawPropensity();
      if (random() > 0.35) continue;
      const start = now - day * DAY + random() * 3600_000;
      const n = 2 + Math.floor(random() * 5);
      for (let k = 0; k < n; k++) {
        const pricing = random() < propensity;
        events.push({
          event: pricing ? 'screen_view' : 'click',
          userId: `${prefix}${u}`,
          timestamp: new Date(start + k * 60_000).toISOString(),
          properties: pricing ? { screen: 'pricing', dwellMs: 8000 } : { button: 'browse' },
        });
      }
      if (random() < propensity / 4) events.push({ event: 'checkout', userId: `${prefix}${u}`, timestamp: new Date(start + n * 60_000).toISOString() });
    }
  }
  return events;
}

/**
 * Stores events straight into the events table of a service-level test's database (no API): the
 * columns training reads (event, user, time, screen, dwell), as ingestion would store them.
 */
export async function storeEvents(dataSource: DataSource, organizationId: string, events: TestEvent[]): Promise<void> {
  await dataSource.query(
    `INSERT INTO events (organization_id, message_id, event, user_id, occurred_at, received_at, screen, dwell_ms)
     SELECT $1, 'm' || e.n, e.event, e.user_id, e.occurred_at, now(), e.screen, e.dwell_ms
       FROM unnest($2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::int[]) WITH ORDINALITY AS e (event, user_id, occurred_at, screen, dwell_ms, n)`,
    [
      organizationId,
      events.map((e) => e.event),
      events.map((e) => e.userId),
      events.map((e) => e.timestamp),
      events.map((e) => (e.properties as { screen?: string } | undefined)?.screen ?? null),
      events.map((e) => (e.properties as { dwellMs?: number } | undefined)?.dwellMs ?? null),
    ],
  );
}

/** Sends events through POST /v1/events in batches of 1,000, like any client would. */
export async function sendEvents(baseUrl: string, token: string, events: TestEvent[]): Promise<void> {
  for (let i = 0; i < events.length; i += 1000) {
    const response = await request(`${baseUrl}/v1/events`, { token, method: 'POST', body: events.slice(i, i + 1000) });
    if (response.status !== 200) throw new Error(`POST /v1/events answered ${response.status}: ${JSON.stringify(response.body)}`);
  }
}

/** GET /v1/models/:id, as far as the tests read it without knowing more. */
export interface ModelDetails {
  status: string;
  lastError: string | null;
  [field: string]: unknown;
}

/** Polls GET /v1/models/{id} until the model leaves `retraining`; the worker's output explains a timeout. */
export async function settledModel(baseUrl: string, token: string, modelId: string, worker: RunningProcess, timeoutMs = 90_000): Promise<ModelDetails> {
  return eventually(`model ${modelId} to settle`, async () => {
    const details = await request<ModelDetails>(`${baseUrl}/v1/models/${modelId}`, { token });
    // A poll the organization's rate limit refused (429) is no answer yet.
    if (details.status !== 200) throw new Error(`GET /v1/models/${modelId} answered ${details.status}`);
    if (details.body.status === 'retraining' || details.body.status === 'untrained') throw new Error(`model ${modelId} still ${details.body.status}:\n${worker.output().slice(-3000)}`);
    return details.body;
  }, timeoutMs);
}

/**
 * Waits until the bulk scoring run that training's promotion queued for each serving version of the
 * organization has finished: its rows are in the prediction log and its label changes announced, so
 * what a test counts or exports next does not race it.
 */
export async function promotionRunsDone(suite: Pick<TestSuite, 'sql'>, organizationId: string, timeoutMs = 120_000): Promise<void> {
  await eventually(`the promotion scoring runs of ${organizationId}`, async () => {
    const [{ open }] = await suite.sql<{ open: string }>(
      `SELECT count(*) AS open FROM models m
        WHERE m.organization_id = $1 AND m.serving_version_id IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM scoring_runs r WHERE r.id = 'scr_promotion_' || m.serving_version_id AND r.state = 'completed')`,
      [organizationId],
    );
    if (Number(open) > 0) throw new Error(`${open} promotion scoring runs of ${organizationId} still not finished`);
    return true;
  }, timeoutMs);
}

/** A bulk scoring run as GET /v1/models/{id}/score/{run} shows it. */
export interface ScoringRunView {
  id: string;
  state: string;
  scored: number;
  total: number;
}

/**
 * Starts a bulk scoring run of the model (POST /v1/models/{id}/score, 202) and polls it until it
 * completed (a run seen failed is what a timeout then reports). With `answers`, every answer is
 * counted there.
 */
export async function completedScoringRun(baseUrl: string, token: string, modelId: string, answers?: Answers, timeoutMs = 120_000): Promise<ScoringRunView> {
  const ask = <T>(what: string, answer: Promise<JsonResponse<T>>, status = 200) => (answers ? answers.expect(what, answer, status) : answer);
  const started = await ask('POST /v1/models/:id/score', request<{ id: string }>(`${baseUrl}/v1/models/${modelId}/score`, { token, method: 'POST' }), 202);
  if (started.status !== 202) throw new Error(`POST /v1/models/${modelId}/score answered ${started.status}: ${JSON.stringify(started.body)}`);
  return eventually(`scoring run ${started.body.id}`, async () => {
    const polled = await ask('GET /v1/models/:id/score/:run', request<ScoringRunView>(`${baseUrl}/v1/models/${modelId}/score/${started.body.id}`, { token }));
    if (polled.body.state === 'failed') throw new Error(`scoring run ${started.body.id} failed: ${JSON.stringify(polled.body)}`);
    return polled.body.state === 'completed' ? polled.body : undefined;
  }, timeoutMs);
}
