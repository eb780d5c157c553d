import { DAY_MS } from '@foresight/platform';
import { computeFeatures, FEATURE_VALUE_LIMIT, FEATURE_WINDOW_DAYS, featuresAt, featuresOfEachAt, TARGET_NOT_IN_WINDOW_DAYS } from './feature-definitions';
import type { FeatureEvent } from './feature-event';
import { buildManifest, type FeatureManifest, narrowManifest } from './feature-manifest';

const cutoff = Date.UTC(2026, 10, 21);
const at = (daysBefore: number, minutes = 0) => cutoff - daysBefore * DAY_MS + minutes * 60_000;
const ev = (occurredAt: number, event: string, extra: Partial<FeatureEvent> = {}): FeatureEvent => ({
  occurredAt,
  event,
  sessionId: null,
  screen: null,
  dwellMs: null,
  hesitationMs: null,
  scrollDepth: null,
  numbers: null,
  strings: null,
  ...extra,
});
const named = (manifest: FeatureManifest, vector: Float32Array) => Object.fromEntries(manifest.names.map((n, i) => [n, vector[i]]));
const f32 = Math.fround; // vectors are float32, as ONNX Runtime reads them
const ALL_SIGNALS = { dwell: true, hesitation: true, scrollDepth: true };

describe('feature definitions', () => {
  const trackedProperties = [
    { event: 'screen_view', key: 'price' },
    { event: 'click', key: 'items' },
    { event: 'checkout', key: 'amount' },
    { event: 'checkout', key: 'coupon' }, // never sent in the window
  ];
  const trackedValues = [
    { event: 'click', key: 'plan', value: 'pro' },
    { event: 'click', key: 'plan', value: 'free' },
    { event: 'checkout', key: 'plan', value: 'pro' }, // a checkout's plan, not a click's
  ];
  const manifest = buildManifest({ trackedEvents: ['click'], trackedScreens: ['/pricing', 'Home'], trackedProperties, trackedValues, targetEvent: 'checkout', signals: ALL_SIGNALS });
  const history = [
    ev(at(40), 'click', { numbers: { items: 100 }, strings: { plan: 'free' } }), // before the 30-day window: only first-seen counts it
    ev(at(10), 'screen_view', { screen: '/pricing?ref=ad', dwellMs: 4000, numbers: { price: 10 } }),
    ev(at(10, 5), 'scroll', { scrollDepth: 0.5, hesitationMs: 300 }), // on /pricing, the screen of its (derived) session
    ev(at(3), 'click', { sessionId: 's1', hesitationMs: 100, numbers: { items: 2, price: 99 }, strings: { plan: 'pro' } }), // a new session: on no screen yet
    ev(at(3, 1), 'screen_view', { sessionId: 's1', screen: 'Home', dwellMs: 2000, numbers: { price: 25, items: 1 } }),
    ev(at(3, 20), 'checkout', { sessionId: 's1', scrollDepth: 1, numbers: { amount: 30 } }), // on Home
    ev(at(0, -30), 'page_view', { screen: 'https://shop.example/pricing/', dwellMs: 1000, numbers: { price: 7 } }), // half an hour before the cutoff
    ev(cutoff, 'checkout', { numbers: { amount: 1000 } }), // at the cutoff: not part of the past
  ];

  it('computes every feature of a hand-made history', () => {
    expect(named(manifest, featuresAt(history, cutoff, manifest) as Float32Array)).toEqual({
      'count_1d:checkout': 0,
      'count_7d:checkout': 1,
      'count_30d:checkout': 1,
      'days_since:checkout': f32(3 - 20 / 1440),
      'count_1d:click': 0,
      'count_7d:click': 1,
      'count_30d:click': 1,
      'days_since:click': 3, // the click 40 days ago is outside the window
      'screen_views_7d:/pricing': 1,
      'screen_views_30d:/pricing': 2,
      'screen_view_share_30d:/pricing': f32(2 / 3),
      'screen_dwell_seconds_7d:/pricing': 1,
      'screen_dwell_seconds_30d:/pricing': 5,
      'screen_mean_hesitation_ms_30d:/pricing': 300,
      'screen_mean_scroll_depth_30d:/pricing': 0.5,
      'screen_views_7d:Home': 1,
      'screen_views_30d:Home': 1,
      'screen_view_share_30d:Home': f32(1 / 3),
      'screen_dwell_seconds_7d:Home': 2,
      'screen_dwell_seconds_30d:Home': 2,
      'screen_mean_hesitation_ms_30d:Home': 0, // the click came before the Home view
      'screen_mean_scroll_depth_30d:Home': 1,
      // Each property counts on its own event only: the click's price and the page view's price do not.
      'property_sum_30d:screen_view/price': 35,
      'property_mean_30d:screen_view/price': 17.5,
      'property_sum_30d:click/items': 2, // the click 40 days ago is outside the window
      'property_mean_30d:click/items': 2,
      'property_sum_30d:checkout/amount': 30, // the checkout at the cutoff is the future
      'property_mean_30d:checkout/amount': 30,
      'property_sum_30d:checkout/coupon': 0,
      'property_mean_30d:checkout/coupon': 0,
      'value_count_30d:click/plan=pro': 1,
      'value_is_latest:click/plan=pro': 1,
      'value_count_30d:click/plan=free': 0, // 40 days ago, outside the window
      'value_is_latest:click/plan=free': 0,
      'value_count_30d:checkout/plan=pro': 0,
      'value_is_latest:checkout/plan=pro': 0,
      events_1d: 1,
      events_7d: 4,
      events_30d: 6,
      events_8_to_14d: 2,
      events_trend_7d: f32(Math.log(5 / 3)),
      events_15_to_21d: 0,
      events_22_to_28d: 0,
      // Least-squares slopes over four weeks, newest weighted 1.5, then 0.5, -0.5, -1.5, over 5.
      events_weekly_slope: f32((1.5 * 4 + 0.5 * 2) / 5),
      active_days_weekly_slope: f32((1.5 * 2 + 0.5 * 1) / 5),
      sessions_weekly_slope: f32((1.5 * 2 + 0.5 * 1) / 5),
      // Wednesday midnight, Friday 23:30 (UTC): neither on a weekend nor within working hours.
      weekend_event_share_30d: 0,
      working_hours_event_share_30d: 0,
      active_days_7d: 2, // 3 days and half an hour ago
      active_days_30d: 3, // and 10 days ago
      sessions_7d: 2, // s1 and the derived session 30 minutes ago
      sessions_30d: 3, // plus the derived one 10 days ago (two events 5 minutes apart)
      mean_session_seconds_30d: (5 * 60 + 20 * 60 + 0) / 3,
      events_per_session_30d: 2,
      screen_views_30d: 3,
      distinct_screens_30d: 2,
      distinct_events_30d: 5,
      days_since_last_event: f32(30 / 1440),
      days_since_first_event: 40,
      days_since_target_event: f32(3 - 20 / 1440),
      total_dwell_seconds_30d: 7,
      mean_view_dwell_seconds_30d: f32(7 / 3),
      mean_log_view_dwell_seconds_30d: f32((Math.log(5) + Math.log(3) + Math.log(2)) / 3),
      mean_hesitation_ms_30d: 200,
      mean_scroll_depth_30d: 0.75,
    });
  });

  it('reads the weekly rhythm in UTC and the days since each tracked event, "longer than the window" without one', () => {
    const rhythm = buildManifest({ trackedEvents: ['click', 'export'], trackedScreens: [], trackedProperties: [], trackedValues: [], targetEvent: 'checkout', signals: ALL_SIGNALS });
    const saturday = cutoff - 7 * DAY_MS + 10 * 3_600_000; // Saturday 10:00, a week before the cutoff
    const monday = saturday + 2 * DAY_MS; // Monday 10:00
    const events = [ev(at(29), 'click'), ev(saturday, 'click'), ev(monday, 'click'), ev(monday + 9 * 3_600_000, 'click')];
    const features = named(rhythm, featuresAt(events, cutoff, rhythm) as Float32Array);
    expect(features.weekend_event_share_30d).toBe(0.25);
    expect(features.working_hours_event_share_30d).toBe(f32(1 / 4)); // Monday 19:00 and Sunday (29 days before a Saturday) are not
    expect(features['days_since:click']).toBe(f32(5 - 19 / 24));
    expect(features['days_since:export']).toBe(TARGET_NOT_IN_WINDOW_DAYS);
    expect(features.events_22_to_28d).toBe(0); // 29 days ago is beyond the four weeks the trends span
    expect(features.events_weekly_slope).toBe(f32((1.5 * 3) / 5)); // three events in the last week, none in the three before
  });

  it('narrows a manifest to the chosen features and to the events, screens and properties they read', () => {
    const narrowed = narrowManifest(manifest, new Set(['count_7d:click', 'screen_views_7d:Home', 'property_sum_30d:checkout/amount', 'value_is_latest:click/plan=pro', 'events_7d']));
    expect(narrowed.names).toEqual(['count_7d:click', 'screen_views_7d:Home', 'property_sum_30d:checkout/amount', 'value_is_latest:click/plan=pro', 'events_7d']);
    expect(narrowed.trackedValues).toEqual([{ event: 'click', key: 'plan', value: 'pro' }]);
    expect(narrowed.trackedEvents).toEqual(['click']);
    expect(narrowed.trackedScreens).toEqual(['Home']);
    expect(narrowed.trackedProperties).toEqual([{ event: 'checkout', key: 'amount' }]);
    const full = named(manifest, featuresAt(history, cutoff, manifest) as Float32Array);
    expect(named(narrowed, featuresAt(history, cutoff, narrowed) as Float32Array)).toEqual(Object.fromEntries(narrowed.names.map((name) => [name, full[name]])));
  });

  it('describes only what the organization sends, and always the target event', () => {
    const chosen = buildManifest({ trackedEvents: ['click'], trackedScreens: ['Home'], trackedProperties: [], trackedValues: [], targetEvent: 'upgrade', signals: { dwell: false, hesitation: false, scrollDepth: false } });
    expect(chosen.trackedEvents).toEqual(['click', 'upgrade']);
    expect(chosen.names.filter((name) => /dwell|hesitation|scroll/.test(name))).toEqual([]);
    expect(chosen.names).toContain('screen_view_share_30d:Home');
  });

  it('names a numeric property once even when two event/key pairs spell the same label', () => {
    const colliding = buildManifest({
      trackedEvents: [],
      trackedScreens: [],
      trackedProperties: [{ event: 'a/b', key: 'c' }, { event: 'a', key: 'b/c' }],
      trackedValues: [],
      targetEvent: 'x',
      signals: { dwell: false, hesitation: false, scrollDepth: false },
    });
    expect(colliding.trackedProperties).toEqual([{ event: 'a/b', key: 'c' }]);
    expect(colliding.names.filter((name) => name.startsWith('property_'))).toEqual(['property_sum_30d:a/b/c', 'property_mean_30d:a/b/c']);
  });

  it('keeps every feature finite and within ±FEATURE_VALUE_LIMIT whatever numbers a client sends', () => {
    const cart = buildManifest({
      trackedEvents: ['add_to_cart'],
      trackedScreens: ['Home'],
      trackedProperties: ['quantity', 'refund', 'swing', 'huge'].map((key) => ({ event: 'add_to_cart', key })),
      trackedValues: [],
      targetEvent: 'checkout',
      signals: ALL_SIGNALS,
    });
    const cartEvent = (daysBefore: number, numbers: Record<string, number>) => ev(at(daysBefore), 'add_to_cart', { screen: 'Home', dwellMs: 2_147_483_647, hesitationMs: 2_147_483_647, numbers });
    const extremes = [
      cartEvent(9, { quantity: 1e39, refund: -1e39, swing: Number.MAX_VALUE, huge: Number.MAX_VALUE }),
      cartEvent(6, { quantity: Number.MAX_VALUE, swing: Number.MAX_VALUE, huge: Infinity }), // Infinity: a jsonb number beyond any double
      cartEvent(3, { refund: -Number.MAX_VALUE, swing: -Number.MAX_VALUE, huge: 1e308 }),
      cartEvent(2, { swing: -Number.MAX_VALUE, huge: 1e308 }),
      cartEvent(1, { swing: 6, huge: -1e308 }),
      // A user's many large values: their sum is bounded too.
      ...Array.from({ length: 1000 }, (_, i) => cartEvent(5 - i / 1000, { quantity: 1e14 })),
    ].sort((a, b) => a.occurredAt - b.occurredAt);
    const features = named(cart, featuresAt(extremes, cutoff, cart) as Float32Array);
    expect(Object.entries(features).filter(([, value]) => !(Math.abs(value) <= f32(FEATURE_VALUE_LIMIT)))).toEqual([]);
    expect(features).toMatchObject({
      'property_sum_30d:add_to_cart/quantity': f32(FEATURE_VALUE_LIMIT),
      'property_mean_30d:add_to_cart/quantity': f32((2 * FEATURE_VALUE_LIMIT + 1000 * 1e14) / 1002),
      'property_sum_30d:add_to_cart/refund': f32(-FEATURE_VALUE_LIMIT),
      'property_mean_30d:add_to_cart/refund': f32(-FEATURE_VALUE_LIMIT),
      // A value beyond the limit counts as the limit: two extremes each way cancel, and what is left is the 6.
      'property_sum_30d:add_to_cart/swing': 6,
      'property_mean_30d:add_to_cart/swing': f32(6 / 5),
      'property_sum_30d:add_to_cart/huge': f32(FEATURE_VALUE_LIMIT),
      'property_mean_30d:add_to_cart/huge': f32((3 * FEATURE_VALUE_LIMIT) / 5), // four values at the limit, one at minus it
    });
    // Serving reads the same bounded values as training.
    const window = extremes.filter((e) => e.occurredAt >= cutoff - FEATURE_WINDOW_DAYS * DAY_MS);
    const activity = { firstSeenAt: extremes[0].occurredAt, lastSeenAt: at(1) };
    expect(named(cart, computeFeatures(window, activity, cutoff, cart))).toEqual(features);
  });

  it('says how long ago the target event was, or that it is not in the window', () => {
    const withoutTarget = history.filter((e) => e.event !== 'checkout');
    expect(named(manifest, featuresAt(withoutTarget, cutoff, manifest) as Float32Array).days_since_target_event).toBe(TARGET_NOT_IN_WINDOW_DAYS);
  });

  it('still computes the vectors of version-1 manifests (versions trained before screens and trends)', () => {
    const version1: FeatureManifest = {
      version: 1,
      trackedEvents: ['click'],
      names: ['count_1d:click', 'count_7d:click', 'count_30d:click', 'events_30d', 'sessions_30d', 'total_dwell_seconds_30d', 'days_since_first_event'],
    };
    expect(Array.from(featuresAt(history, cutoff, version1) as Float32Array)).toEqual([0, 1, 1, 6, 3, 7, 40]);
  });

  it('refuses a manifest naming a feature no definition computes', () => {
    const unknown: FeatureManifest = { version: 2, trackedEvents: [], trackedScreens: [], targetEvent: 'x', names: ['screen_views_7d:/nowhere'] };
    expect(() => featuresAt(history, cutoff, unknown)).toThrow('the manifest names feature "screen_views_7d:/nowhere", which no definition computes');
  });

  it('returns nothing for a user with no event before the cutoff', () => {
    expect(featuresAt([ev(cutoff + 1, 'click')], cutoff, manifest)).toBeUndefined();
  });

  it('never reads events at or after the cutoff (no label leakage)', () => {
    const past = [ev(at(5), 'click'), ev(at(1), 'checkout', { screen: 'Home' })];
    const future = [...past, ev(cutoff, 'checkout'), ev(cutoff + DAY_MS, 'click', { dwellMs: 99_000, screen: '/pricing' })];
    expect(featuresAt(future, cutoff, manifest)).toEqual(featuresAt(past, cutoff, manifest));
  });

  /** Histories of `users` made-up users, 90 days before the cutoff to 10 days after, reproducible. */
  function randomHistories(users: number): FeatureEvent[][] {
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const names = ['click', 'checkout', 'scroll', 'screen_view'];
    const plans = ['free', 'pro', 'team'];
    const screens = ['Home', '/pricing?plan=pro', '/products/sku-0042', '/products/sku-0007#reviews', 'https://shop.example/cart/'];
    return Array.from({ length: users }, () => {
      const userHistory: FeatureEvent[] = [];
      let t = at(90);
      while (t < cutoff + 10 * DAY_MS) {
        t += random() < 0.2 ? random() * 5 * DAY_MS : random() * 40 * 60_000;
        const event = names[Math.floor(random() * names.length)];
        userHistory.push(
          ev(Math.round(t), event, {
            sessionId: random() < 0.5 ? `s${Math.floor(t / (2 * 3600_000))}` : null,
            screen: event === 'screen_view' ? screens[Math.floor(random() * screens.length)] : null,
            dwellMs: random() < 0.5 ? Math.round(random() * 10_000) : null,
            hesitationMs: random() < 0.3 ? Math.round(random() * 900) : null,
            scrollDepth: random() < 0.3 ? Math.round(random() * 100) / 100 : null,
            numbers: random() < 0.5 ? { amount: Math.round(random() * 5000) / 100, items: Math.floor(random() * 6) } : null,
            strings: random() < 0.5 ? { plan: plans[Math.floor(random() * plans.length)] } : null,
          }),
        );
      }
      return userHistory;
    });
  }
  const every = buildManifest({
    trackedEvents: ['click', 'scroll'],
    trackedScreens: ['Home', '/pricing', '/products/:id', '/cart'],
    trackedProperties: [{ event: 'checkout', key: 'amount' }, { event: 'click', key: 'items' }],
    trackedValues: [{ event: 'click', key: 'plan', value: 'pro' }, { event: 'click', key: 'plan', value: 'team' }, { event: 'checkout', key: 'plan', value: 'free' }],
    targetEvent: 'checkout',
    signals: ALL_SIGNALS,
  });

  // An inactivity model's manifest: no target event, so no target features.
  const anyEvent = buildManifest({
    trackedEvents: ['click', 'scroll', 'checkout'],
    trackedScreens: ['Home', '/pricing'],
    trackedProperties: [{ event: 'checkout', key: 'amount' }],
    trackedValues: [{ event: 'scroll', key: 'plan', value: 'team' }],
    signals: ALL_SIGNALS,
  });

  it.each([
    ['an event or value model', every],
    ['an inactivity model (no target event)', anyEvent],
  ])('gives training (whole history at a past cutoff) and serving (SQL-style window + activity) identical vectors, feature by feature: %s', (_, manifest) => {
    const nonZero = new Set<string>();
    for (const userHistory of randomHistories(200)) {
      for (const pastCutoff of [at(45), at(20), at(7), cutoff]) {
        // What serving loads: the window by time range, first and last seen by min/max before the cutoff.
        const window = userHistory.filter((e) => e.occurredAt >= pastCutoff - FEATURE_WINDOW_DAYS * DAY_MS && e.occurredAt < pastCutoff);
        const before = userHistory.filter((e) => e.occurredAt < pastCutoff);
        if (before.length === 0) continue;
        const activity = { firstSeenAt: Math.min(...before.map((e) => e.occurredAt)), lastSeenAt: Math.max(...before.map((e) => e.occurredAt)) };
        const training = named(manifest, featuresAt(userHistory, pastCutoff, manifest) as Float32Array);
        // days_since_last_event included: it also decides, on both sides, whether an inactivity model's user is in its population.
        expect(training).toEqual(named(manifest, computeFeatures(window, activity, pastCutoff, manifest)));
        for (const [name, value] of Object.entries(training)) if (value !== 0) nonZero.add(name);
      }
    }
    // The comparison above means something for every feature only if each one took a value besides 0.
    expect(manifest.names.filter((name) => !nonZero.has(name))).toEqual([]);
  });

  it('describes no target event for a model of no particular event', () => {
    expect(anyEvent.targetEvent).toBeUndefined();
    expect(anyEvent.names).not.toContain('days_since_target_event');
    expect(anyEvent.names).toContain('days_since_last_event');
  });

  it("computes several manifests in one pass exactly as each on its own, whatever the others track", () => {
    // Another target, other screens and properties; one property label spelled by two pairs across manifests; a version-1 manifest.
    const other = buildManifest({
      trackedEvents: ['checkout'],
      trackedScreens: ['/products/:id'],
      trackedProperties: [{ event: 'click', key: 'amount' }, { event: 'checkout', key: 'items' }],
      trackedValues: [{ event: 'click', key: 'plan', value: 'free' }, { event: 'click', key: 'plan', value: 'pro' }],
      targetEvent: 'scroll',
      signals: { dwell: true, hesitation: false, scrollDepth: true },
    });
    const colliding = (event: string, key: string): FeatureManifest => ({
      version: 2,
      trackedEvents: [],
      trackedScreens: [],
      trackedProperties: [{ event, key }],
      targetEvent: 'click',
      names: [`property_sum_30d:${event}/${key}`, 'days_since_target_event'],
    });
    const version1: FeatureManifest = { version: 1, trackedEvents: ['click'], names: ['count_7d:click', 'events_30d', 'days_since_first_event'] };
    const sets = [[every, other, version1, anyEvent], [other, every], [colliding('a/b', 'c'), colliding('a', 'b/c'), every]];
    const spelledAlike = [ev(at(3), 'a/b', { numbers: { c: 5 } }), ev(at(2), 'a', { numbers: { 'b/c': 7 } }), ev(at(1), 'click')];
    expect(featuresOfEachAt(spelledAlike, cutoff, sets[2])?.slice(0, 2).map((vector) => vector[0])).toEqual([5, 7]);
    for (const userHistory of randomHistories(60)) {
      for (const pastCutoff of [at(20), cutoff]) {
        for (const manifests of sets) {
          expect(featuresOfEachAt(userHistory, pastCutoff, manifests)).toEqual(manifests.map((manifest) => featuresAt(userHistory, pastCutoff, manifest)));
        }
      }
    }
    expect(featuresOfEachAt([ev(cutoff + 1, 'click')], cutoff, [every, other])).toBeUndefined();
    // A feature of an event only another manifest of the set tracks is still refused.
    const untracked: FeatureManifest = { version: 2, trackedEvents: [], trackedScreens: [], targetEvent: 'x', names: ['count_7d:click'] };
    expect(() => featuresOfEachAt(randomHistories(1)[0], cutoff, [every, untracked])).toThrow('the manifest names feature "count_7d:click", which no definition computes');
  });
});
