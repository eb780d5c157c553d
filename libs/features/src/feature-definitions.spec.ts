import { DAY_MS } from '@foresight/platform';
import { buildManifest, computeFeatures, FEATURE_WINDOW_DAYS, type FeatureManifest, featuresAt } from './feature-definitions';
import type { FeatureEvent } from './feature-event';

const cutoff = Date.UTC(2026, 10, 21);
const at = (daysBefore: number, minutes = 0) => cutoff - daysBefore * DAY_MS + minutes * 60_000;
const ev = (occurredAt: number, event: string, extra: Partial<FeatureEvent> = {}): FeatureEvent => ({
  occurredAt,
  event,
  sessionId: null,
  dwellMs: null,
  hesitationMs: null,
  scrollDepth: null,
  ...extra,
});
const named = (manifest: FeatureManifest, vector: Float32Array) => Object.fromEntries(manifest.names.map((n, i) => [n, vector[i]]));

describe('feature definitions', () => {
  const manifest = buildManifest(['click', 'checkout']);

  it('computes every feature of a hand-made history', () => {
    const history = [
      ev(at(40), 'click'), // before the 30-day window: only first-seen counts it
      ev(at(10), 'click', { dwellMs: 4000 }),
      ev(at(10, 5), 'scroll', { scrollDepth: 0.5, hesitationMs: 300 }),
      ev(at(3), 'click', { sessionId: 's1', hesitationMs: 100 }),
      ev(at(3, 20), 'checkout', { sessionId: 's1', dwellMs: 2000, scrollDepth: 1 }),
      ev(at(0, -30), 'click'), // half an hour before the cutoff
      ev(cutoff, 'checkout'), // at the cutoff: not part of the past
    ];
    const features = named(manifest, featuresAt(history, cutoff, manifest) as Float32Array);
    expect(features).toEqual({
      'count_1d:click': 1,
      'count_7d:click': 2,
      'count_30d:click': 3,
      'count_1d:checkout': 0,
      'count_7d:checkout': 1,
      'count_30d:checkout': 1,
      events_1d: 1,
      events_7d: 3,
      events_30d: 5,
      sessions_7d: 2, // s1 and the derived session 30 minutes ago
      sessions_30d: 3, // plus the derived one 10 days ago (two events 5 minutes apart)
      mean_session_seconds_30d: (5 * 60 + 20 * 60 + 0) / 3,
      events_per_session_30d: Math.fround(5 / 3), // vectors are float32, as ONNX Runtime reads them
      total_dwell_seconds_30d: 6,
      mean_hesitation_ms_30d: 200,
      mean_scroll_depth_30d: 0.75,
      distinct_events_30d: 3,
      days_since_last_event: expect.closeTo(30 / 1440, 6),
      days_since_first_event: 40,
    });
  });

  it('returns nothing for a user with no event before the cutoff', () => {
    expect(featuresAt([ev(cutoff + 1, 'click')], cutoff, manifest)).toBeUndefined();
  });

  it('never reads events at or after the cutoff (no label leakage)', () => {
    const past = [ev(at(5), 'click'), ev(at(1), 'checkout')];
    const future = [...past, ev(cutoff, 'checkout'), ev(cutoff + DAY_MS, 'click', { dwellMs: 99_000 })];
    expect(featuresAt(future, cutoff, manifest)).toEqual(featuresAt(past, cutoff, manifest));
  });

  it('gives training (whole history at a past cutoff) and serving (SQL-style window + activity) identical vectors', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const names = ['click', 'checkout', 'scroll', 'screen_view'];
    for (let user = 0; user < 200; user++) {
      const history: FeatureEvent[] = [];
      let t = at(90);
      while (t < cutoff + 10 * DAY_MS) {
        t += random() < 0.2 ? random() * 5 * DAY_MS : random() * 40 * 60_000;
        history.push(
          ev(Math.round(t), names[Math.floor(random() * names.length)], {
            sessionId: random() < 0.5 ? `s${Math.floor(t / (2 * 3600_000))}` : null,
            dwellMs: random() < 0.5 ? Math.round(random() * 10_000) : null,
            hesitationMs: random() < 0.3 ? Math.round(random() * 900) : null,
            scrollDepth: random() < 0.3 ? Math.round(random() * 100) / 100 : null,
          }),
        );
      }
      for (const pastCutoff of [at(45), at(20), at(7), cutoff]) {
        // What serving loads: the window by time range, first and last seen by min/max before the cutoff.
        const window = history.filter((e) => e.occurredAt >= pastCutoff - FEATURE_WINDOW_DAYS * DAY_MS && e.occurredAt < pastCutoff);
        const before = history.filter((e) => e.occurredAt < pastCutoff);
        if (before.length === 0) continue;
        const activity = { firstSeenAt: Math.min(...before.map((e) => e.occurredAt)), lastSeenAt: Math.max(...before.map((e) => e.occurredAt)) };
        expect(featuresAt(history, pastCutoff, manifest)).toEqual(computeFeatures(window, activity, pastCutoff, manifest));
      }
    }
  });
});
