import { type EventInput, validateEvents } from '@foresight/events';
import { DAY_MS } from '@foresight/platform';
import { type DemoOptions, type DemoUser, generateDemoUser, generateDemoUsers } from './demo-generator';
import { oracleProbability } from './demo-oracle';
import { DEMO_TARGETS, type DemoTarget } from './demo-population';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const options = (overrides: Partial<DemoOptions> = {}): DemoOptions => ({ users: 300, days: 30, seed: 42, shift: 0, userPrefix: 'u-', now: NOW, ...overrides });
const usersOf = (overrides: Partial<DemoOptions> = {}): DemoUser[] => [...generateDemoUsers(options(overrides))];
const count = (events: EventInput[], name: string) => events.filter((e) => e.event === name).length;
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const timeOf = (event: EventInput) => Date.parse(event.timestamp ?? '');

describe('demo generator', () => {
  // One population serves every test that needs numbers: generation is the slow part of this spec.
  const population = usersOf({ users: 6000 });
  const events = population.flatMap((u) => u.events);

  it('is deterministic: the same seed gives the same events, another seed others', () => {
    expect(usersOf({ users: 50 })).toEqual(population.slice(0, 50));
    const other = usersOf({ users: 50, seed: 43 });
    expect(other.map((u) => u.events.length)).not.toEqual(population.slice(0, 50).map((u) => u.events.length));
    expect(other[0].events[0].messageId).not.toBe(population[0].events[0].messageId);
  });

  it('keeps messageIds when only the clock moves, so a re-run is all duplicates', () => {
    const later = usersOf({ users: 50, now: new Date(NOW.getTime() + 3600_000) });
    expect(later.flatMap((u) => u.events.map((e) => e.messageId))).toEqual(population.slice(0, 50).flatMap((u) => u.events.map((e) => e.messageId)));
    expect(timeOf(later[0].events[0]) - timeOf(population[0].events[0])).toBe(3600_000);
  });

  it('generates a user on its own exactly as within the population', () => {
    expect(generateDemoUser(options(), 1234)).toEqual(population[1234]);
  });

  it('puts every event in [now - days, now], in time order per user, with unique messageIds', () => {
    // ISO timestamps of one format (UTC, milliseconds) order as strings do, and compare faster.
    const from = new Date(NOW.getTime() - 30 * DAY_MS).toISOString();
    const until = NOW.toISOString();
    for (const user of population) {
      const times = user.events.map((e) => e.timestamp ?? '');
      expect(times.every((t, i) => t >= from && t <= until && (i === 0 || t >= times[i - 1]))).toBe(true);
    }
    expect(new Set(events.map((e) => e.messageId)).size).toBe(events.length);
    expect(events.length).toBeGreaterThan(30 * population.length);
  });

  it('produces only events that ingestion accepts', async () => {
    const checked = population.slice(0, 500).flatMap((u) => u.events);
    for (let i = 0; i < checked.length; i += 1000) expect(await validateEvents(checked.slice(i, i + 1000))).toHaveLength(Math.min(1000, checked.length - i));
    const names = new Set(events.map((e) => e.event));
    for (const name of ['screen_view', 'page_view', 'click', 'tap', 'scroll', 'add_to_cart', 'search', 'identify', ...DEMO_TARGETS]) {
      expect(names).toContain(name);
    }
  });

  it('gives SDK users client sessions of 1 to 15 events, and backend users none', () => {
    for (const { truth, events: own } of population) {
      if (truth.source === 'backend') expect(own.every((e) => e.sessionId === undefined)).toBe(true);
      else expect(own.every((e) => e.sessionId !== undefined)).toBe(true);
    }
    const sizes = new Map<string, number>();
    for (const e of events) if (e.sessionId) sizes.set(e.sessionId, (sizes.get(e.sessionId) ?? 0) + 1);
    expect(Math.max(...sizes.values())).toBeLessThanOrEqual(15);
    expect(Math.min(...sizes.values())).toBe(1);
    expect(population.filter((u) => u.truth.source === 'backend').length / population.length).toBeCloseTo(0.25, 1);
  });

  it('starts some users anonymous and links them with an identify event carrying both ids', () => {
    const identified = population.filter((u) => u.truth.anonymousId !== null && u.truth.identifiedAt !== null);
    expect(identified.length).toBeGreaterThan(population.length * 0.15);
    for (const { truth, events: own } of identified) {
      const at = own.findIndex((e) => e.event === 'identify');
      expect(own[at]).toMatchObject({ userId: truth.userId, anonymousId: truth.anonymousId, timestamp: truth.identifiedAt });
      expect(own.slice(0, at).every((e) => e.userId === undefined && e.anonymousId === truth.anonymousId)).toBe(true);
      expect(own.slice(at).every((e) => e.userId === truth.userId)).toBe(true);
    }
    const known = population.filter((u) => u.truth.anonymousId === null);
    expect(known.every((u) => u.events.every((e) => e.userId === u.truth.userId && e.anonymousId === undefined))).toBe(true);
  });

  it('shows buying intent in behavior: the top checkout-propensity decile adds to cart more, dwells longer, hesitates less', () => {
    const ranked = [...population].sort((a, b) => a.truth.perSession.checkout - b.truth.perSession.checkout);
    const decile = population.length / 10;
    const bottom = ranked.slice(0, decile);
    const top = ranked.slice(-decile);
    const perUser = (users: DemoUser[], value: (own: EventInput[]) => number) => mean(users.filter((u) => u.events.length > 0).map((u) => value(u.events)));
    const signal = (own: EventInput[], key: 'dwellMs' | 'hesitationMs') => {
      const values = own.map((e) => e.properties?.[key]).filter((v): v is number => typeof v === 'number');
      return values.length > 0 ? mean(values) : NaN;
    };
    const meanSignal = (users: DemoUser[], key: 'dwellMs' | 'hesitationMs') => mean(users.map((u) => signal(u.events, key)).filter((v) => !Number.isNaN(v)));

    expect(perUser(top, (own) => count(own, 'add_to_cart'))).toBeGreaterThan(3 * perUser(bottom, (own) => count(own, 'add_to_cart')));
    expect(meanSignal(top, 'dwellMs')).toBeGreaterThan(1.2 * meanSignal(bottom, 'dwellMs'));
    expect(meanSignal(top, 'hesitationMs')).toBeLessThan(0.8 * meanSignal(bottom, 'hesitationMs'));
  });

  it('in `screens` mode shows intent only through screens, dwell and hesitation, never through event names', () => {
    const screensOnly = usersOf({ users: 6000, intentSignal: 'screens' });
    const ranked = [...screensOnly].sort((a, b) => a.truth.perSession.checkout - b.truth.perSession.checkout);
    const decile = screensOnly.length / 10;
    const [bottom, top] = [ranked.slice(0, decile), ranked.slice(-decile)];
    const nonTarget = (u: DemoUser) => u.events.filter((e) => !(DEMO_TARGETS as readonly string[]).includes(e.event));
    const perUser = (users: DemoUser[], value: (own: EventInput[]) => number) => mean(users.map((u) => value(nonTarget(u))));
    const views = (own: EventInput[]) => own.filter((e) => e.event === 'screen_view' || e.event === 'page_view');
    const productViews = (own: EventInput[]) => views(own).filter((e) => /ProductDetail|\/products\//.test(String(e.properties?.screen ?? e.properties?.url)));
    const share = (own: EventInput[]) => productViews(own).length / Math.max(1, views(own).length);
    const viewHesitation = (own: EventInput[]) => mean(productViews(own).map((e) => e.properties?.hesitationMs).filter((v): v is number => typeof v === 'number'));

    // Event names: every kind of event is as frequent at the top as at the bottom (within noise).
    expect(screensOnly.some((u) => count(u.events, 'add_to_cart') > 0)).toBe(false);
    for (const name of ['tap', 'click', 'scroll', 'search']) {
      const ratio = perUser(top, (own) => count(own, name)) / perUser(bottom, (own) => count(own, name));
      expect(ratio).toBeGreaterThan(0.8);
      expect(ratio).toBeLessThan(1.25);
    }
    expect(perUser(top, (own) => own.length) / perUser(bottom, (own) => own.length)).toBeLessThan(1.25);
    // Screens: buyers look at products far more, and hesitate less there.
    expect(perUser(top, share)).toBeGreaterThan(1.5 * perUser(bottom, share));
    expect(mean(top.map((u) => viewHesitation(u.events)).filter((v) => !Number.isNaN(v)))).toBeLessThan(
      0.8 * mean(bottom.map((u) => viewHesitation(u.events)).filter((v) => !Number.isNaN(v))),
    );
  });

  describe('the oracle matches what the generated events do', () => {
    const horizonDays = 7;
    const cutoff = new Date(NOW.getTime() - horizonDays * DAY_MS);
    // The rows a model would train on: users with an event in the 30 days before the cutoff.
    const iso = (days: number) => new Date(cutoff.getTime() + days * DAY_MS).toISOString();
    const [activeFrom, at, horizonEnd] = [iso(-30), iso(0), iso(horizonDays)];
    const active = population.filter((u) => u.events.some((e) => (e.timestamp ?? '') <= at && (e.timestamp ?? '') > activeFrom));
    const did = (user: DemoUser, target: DemoTarget) =>
      user.events.some((e) => e.event === target && (e.timestamp ?? '') > at && (e.timestamp ?? '') <= horizonEnd);

    it.each(DEMO_TARGETS)('%s: observed rate within 3 standard errors of the mean oracle, overall and per oracle quintile', (target) => {
      const rows = active.map((u) => ({ p: oracleProbability(u.truth, target, cutoff, horizonDays), y: did(u, target) ? 1 : 0 })).sort((a, b) => a.p - b.p);
      const check = (part: typeof rows) => {
        const expected = part.reduce((s, r) => s + r.p, 0);
        const observed = part.reduce((s, r) => s + r.y, 0);
        const standardError = Math.sqrt(part.reduce((s, r) => s + r.p * (1 - r.p), 0));
        expect(Math.abs(observed - expected)).toBeLessThan(3 * standardError);
      };
      check(rows);
      for (let q = 0; q < 5; q++) check(rows.slice(Math.floor((q * rows.length) / 5), Math.floor(((q + 1) * rows.length) / 5)));
    });

    it('has realistic base rates (3-20% within 7 days) and an oracle AUC of about 0.75-0.88', () => {
      for (const target of DEMO_TARGETS) {
        const rows = active.map((u) => ({ p: oracleProbability(u.truth, target, cutoff, horizonDays), y: did(u, target) }));
        const rate = rows.filter((r) => r.y).length / rows.length;
        expect(rate).toBeGreaterThan(0.03);
        expect(rate).toBeLessThan(0.2);
        const auc = rocAuc(rows);
        expect(auc).toBeGreaterThan(target === 'churn' ? 0.7 : 0.75);
        expect(auc).toBeLessThan(0.88);
      }
    });
  });

  it('streams: users come one at a time, so a billion-user run starts at once and 5,000 users are counted without an array', () => {
    const huge = generateDemoUsers(options({ users: 1e9 }));
    expect(huge.next().value).toEqual(population[0]);
    let total = 0;
    for (const user of generateDemoUsers(options({ users: 5000 }))) total += user.events.length;
    expect(total).toBeGreaterThan(5000 * 30);
  });

  it('shift moves the behavior mix and the propensities; the prefix keeps populations apart', () => {
    const reference = population.slice(0, 1500);
    const up = usersOf({ users: 1500, shift: 0.8, userPrefix: 'shifted-' });
    const down = usersOf({ users: 1500, shift: -0.8, userPrefix: 'shifted-' });
    const addToCartPerUser = (users: DemoUser[]) => mean(users.map((u) => count(u.events, 'add_to_cart')));
    const mobileShare = (users: DemoUser[]) => users.filter((u) => u.truth.platform !== 'web').length / users.length;
    const meanCheckout = (users: DemoUser[]) => mean(users.map((u) => u.truth.perSession.checkout));

    expect(addToCartPerUser(up)).toBeGreaterThan(1.5 * addToCartPerUser(reference));
    expect(addToCartPerUser(down)).toBeLessThan(0.7 * addToCartPerUser(reference));
    expect(mobileShare(up) - mobileShare(reference)).toBeGreaterThan(0.15);
    expect(meanCheckout(up)).toBeGreaterThan(1.5 * meanCheckout(reference));
    expect(meanCheckout(down)).toBeLessThan(0.7 * meanCheckout(reference));
    expect(up.every((u) => u.truth.userId.startsWith('shifted-'))).toBe(true);
    const ids = new Set(reference.flatMap((u) => u.events.map((e) => e.messageId)));
    expect(up.some((u) => u.events.some((e) => ids.has(e.messageId)))).toBe(false);
  });
});

/** Probability that a random positive outranks a random negative (ties count half). */
function rocAuc(rows: Array<{ p: number; y: boolean }>): number {
  const sorted = [...rows].sort((a, b) => a.p - b.p);
  let negativesBelow = 0;
  let wins = 0;
  let positives = 0;
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    let tiedPositives = 0;
    let tiedNegatives = 0;
    for (; j < sorted.length && sorted[j].p === sorted[i].p; j++) {
      if (sorted[j].y) tiedPositives++;
      else tiedNegatives++;
    }
    wins += tiedPositives * (negativesBelow + tiedNegatives / 2);
    positives += tiedPositives;
    negativesBelow += tiedNegatives;
    i = j;
  }
  return wins / (positives * negativesBelow);
}
