import { type EventInput, validateEvents } from '@foresight/events';
import { rocAuc } from '@foresight/models';
import { DAY_MS } from '@foresight/platform';
import { demoOracleProbability } from './demo-oracle';
import { generateSaasUsers, type SaasOptions, type SaasUser } from './demo-saas';
import { SAAS_PLANS, type SaasTarget } from './demo-saas-model';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const DAYS = 45;
const options = (overrides: Partial<SaasOptions> = {}): SaasOptions => ({ users: 3000, days: DAYS, seed: 42, userPrefix: 'u-', now: NOW, ...overrides });
const usersOf = (overrides: Partial<SaasOptions> = {}): SaasUser[] => [...generateSaasUsers(options(overrides))];
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const timeOf = (event: EventInput) => Date.parse(event.timestamp ?? '');

interface Row {
  user: SaasUser;
  cutoff: number;
  label: boolean;
  /** Whether the user did one of `precursors` in the 7 days before the cutoff. */
  preceded: boolean;
}

/** The rows a model trains on: users with an event in the 30 days before each cutoff, labelled from the events. */
function rowsOf(users: SaasUser[], target: SaasTarget, horizonDays: number, precursors: readonly string[]): Row[] {
  const rows: Row[] = [];
  for (let k = 0; k < 10; k++) {
    const cutoff = NOW.getTime() - (horizonDays + k) * DAY_MS + 5 * 60_000;
    for (const user of users) {
      const times = user.events.map(timeOf);
      if (!times.some((t) => t < cutoff && t >= cutoff - 30 * DAY_MS)) continue;
      const within = (from: number, until: number, names: readonly string[]) => user.events.some((e, i) => names.includes(e.event) && times[i] >= from && times[i] < until);
      rows.push({
        user,
        cutoff,
        label: within(cutoff, cutoff + horizonDays * DAY_MS, [target]),
        preceded: within(cutoff - 7 * DAY_MS, cutoff, precursors),
      });
    }
  }
  return rows;
}

describe('SaaS demo generator', () => {
  // One population serves every test that needs numbers: generation is the slow part of this spec.
  const population = usersOf();
  const events = population.flatMap((u) => u.events);
  const cancellation = rowsOf(population, 'subscription_cancelled', 14, ['payment_failed', 'support_ticket_created']);
  const upgrade = rowsOf(population, 'plan_upgraded', 7, ['usage_limit_reached', 'member_invited']);

  it('is deterministic: the same seed gives the same users, another seed others', () => {
    expect(usersOf({ users: 50 })).toEqual(population.slice(0, 50));
    const other = usersOf({ users: 50, seed: 43 });
    expect(other.map((u) => u.events.length)).not.toEqual(population.slice(0, 50).map((u) => u.events.length));
    expect(other[0].events[0].messageId).not.toBe(population[0].events[0].messageId);
  });

  it('puts every event in [now - days, now], in time order per user, with unique messageIds that ingestion accepts', async () => {
    const from = NOW.getTime() - DAYS * DAY_MS;
    for (const user of population) {
      const times = user.events.map(timeOf);
      expect(times.every((t, i) => t >= from && t <= NOW.getTime() && (i === 0 || t >= times[i - 1]))).toBe(true);
    }
    expect(new Set(events.map((e) => e.messageId)).size).toBe(events.length);
    const checked = population.slice(0, 300).flatMap((u) => u.events);
    for (let i = 0; i < checked.length; i += 1000) expect(await validateEvents(checked.slice(i, i + 1000))).toHaveLength(Math.min(1000, checked.length - i));
  });

  it('cancels at most once, as the last event, keeps cancelled users in the data, and never upgrades past business', () => {
    for (const { truth, events: own } of population) {
      const cancels = own.filter((e) => e.event === 'subscription_cancelled');
      expect(cancels.length).toBe(truth.cancelledAt === null ? 0 : 1);
      if (truth.cancelledAt !== null) expect(own.at(-1)?.event).toBe('subscription_cancelled');
      expect(own.filter((e) => e.event === 'plan_upgraded').every((e) => e.properties?.from !== 'business')).toBe(true);
    }
    const longAgo = population.filter((u) => u.truth.cancelledAt !== null && Date.parse(u.truth.cancelledAt) < NOW.getTime() - 30 * DAY_MS);
    expect(longAgo.length).toBeGreaterThan(20);
    expect(demoOracleProbability(longAgo[0].truth, 'subscription_cancelled', NOW, 14)).toBe(0);
  });

  it('puts plan and feature names in string properties, on about 50 screens', () => {
    const used = events.filter((e) => e.event === 'feature_used');
    expect(new Set(used.map((e) => e.properties?.plan))).toEqual(new Set(SAAS_PLANS));
    expect(new Set(used.map((e) => e.properties?.feature)).size).toBe(8);
    expect(new Set(events.filter((e) => e.event === 'screen_view').map((e) => e.properties?.screen)).size).toBe(50);
  });

  it('lets activity fall week over week before a cancellation', () => {
    const weeks = [0, 1, 2].map((before) =>
      mean(
        population
          .filter((u) => u.truth.joinDay === 0 && u.truth.cancelledAt !== null && Date.parse(u.truth.cancelledAt) > NOW.getTime() - (DAYS - 28) * DAY_MS)
          .map((u) => {
            const end = Date.parse(u.truth.cancelledAt as string) - before * 7 * DAY_MS;
            return u.events.filter((e) => timeOf(e) < end && timeOf(e) >= end - 7 * DAY_MS).length;
          }),
      ),
    );
    // Last week before cancelling < the week before < the one before that.
    expect(weeks[0]).toBeLessThan(weeks[1]);
    expect(weeks[1]).toBeLessThan(weeks[2]);
  });

  it('makes rare decisive events precede cancellations, and team growth upgrades', () => {
    for (const [rows, share] of [[cancellation, 0.1], [upgrade, 0.5]] as const) {
      const preceded = rows.filter((r) => r.preceded);
      const rate = mean(rows.map((r) => Number(r.label)));
      expect(preceded.length).toBeLessThan(rows.length * share);
      expect(mean(preceded.map((r) => Number(r.label)))).toBeGreaterThan(2 * rate);
    }
  });

  it('gives team users a weekday rhythm', () => {
    const sessionsBy = (weekend: boolean) => new Set(events.filter((e) => e.sessionId !== undefined && [0, 6].includes(new Date(timeOf(e)).getUTCDay()) === weekend).map((e) => e.sessionId)).size;
    // 2 weekend days against 5 weekdays: per day, weekdays see clearly more sessions.
    expect(sessionsBy(false) / 5).toBeGreaterThan(1.3 * (sessionsBy(true) / 2));
  });

  it('has a calibrated oracle whose AUC leaves room below it and above chance', () => {
    for (const [target, rows, horizonDays] of [['subscription_cancelled', cancellation, 14], ['plan_upgraded', upgrade, 7]] as const) {
      const labels = Uint8Array.from(rows.map((r) => Number(r.label)));
      const scores = Float64Array.from(rows.map((r) => demoOracleProbability(r.user.truth, target, new Date(r.cutoff), horizonDays)));
      const rate = mean([...labels]);
      expect(rate).toBeGreaterThan(0.01);
      expect(Math.abs(mean([...scores]) - rate)).toBeLessThan(0.15 * rate);
      expect(rocAuc(labels, scores)).toBeGreaterThan(0.8);
      expect(rocAuc(labels, scores)).toBeLessThan(0.97);
    }
  });
});
