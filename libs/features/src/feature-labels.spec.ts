import { computeFeatures } from './feature-definitions';
import { featureLabel } from './feature-labels';
import { buildManifest } from './feature-manifest';

describe('featureLabel', () => {
  const manifest = buildManifest({
    trackedEvents: ['signup', 'click'],
    trackedScreens: ['/pricing', 'Home'],
    trackedProperties: [{ event: 'checkout', key: 'amount' }],
    trackedValues: [{ event: 'checkout', key: 'plan', value: 'pro' }],
    targetEvent: 'checkout',
    signals: { dwell: true, hesitation: true, scrollDepth: true },
  });

  it('names in words every feature the definitions compute, each differently', () => {
    // Every name is one the definitions compute (computeFeatures throws on any other).
    expect(computeFeatures([], { firstSeenAt: 0, lastSeenAt: 0 }, 1, manifest)).toHaveLength(manifest.names.length);
    const labels = manifest.names.map(featureLabel);
    labels.forEach((label, i) => {
      expect(label).not.toBe(manifest.names[i]);
      // No identifier left in it: the subjects here hold no underscore.
      expect(label).not.toMatch(/_/u);
    });
    expect(new Set(labels).size).toBe(labels.length);
  });

  it('says which event, screen or property a feature is about', () => {
    expect(featureLabel('screen_view_share_30d:/pricing')).toBe('share of screen views on /pricing, last 30 days');
    expect(featureLabel('count_7d:add_to_cart')).toBe('"add_to_cart" events, last 7 days');
    expect(featureLabel('property_sum_30d:checkout/amount')).toBe('total of checkout/amount (event/property), last 30 days');
    expect(featureLabel('days_since_last_event')).toBe('days since the last event');
  });

  it('answers an id no definition produces as it is, whatever it spells', () => {
    for (const id of ['constructor', 'toString:x', 'no_such_feature', '__proto__']) expect(featureLabel(id)).toBe(id);
  });
});
