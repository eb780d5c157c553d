import type { FeatureEvent } from '@foresight/features';
import { DAY_MS } from '@foresight/platform';
import { inPopulation, outcomeAfter, type PredictionTarget } from './training-target';

const cutoff = Date.UTC(2026, 9, 1);
const horizonMs = 7 * DAY_MS;
const event = (daysAfterCutoff: number, name: string, numbers: Record<string, number> | null = null): FeatureEvent => ({
  occurredAt: cutoff + daysAfterCutoff * DAY_MS,
  event: name,
  sessionId: null,
  screen: null,
  dwellMs: null,
  hesitationMs: null,
  scrollDepth: null,
  numbers,
  strings: null,
});
/** The outcome of the events after the cutoff (those before it are the features' and are skipped as training skips them). */
const outcome = (target: PredictionTarget, history: FeatureEvent[]) => {
  const start = history.findIndex((e) => e.occurredAt >= cutoff);
  return outcomeAfter(target, history, start < 0 ? history.length : start, cutoff, horizonMs);
};

describe('training targets', () => {
  const churn: PredictionTarget = { kind: 'inactivity', activeDays: 7 };
  const purchase: PredictionTarget = { kind: 'event', targetEvent: 'purchase' };
  const spend: PredictionTarget = { kind: 'value', targetEvent: 'purchase', valueProperty: 'amount' };

  it('inactivity: churned when no event at all comes within the horizon, whatever the event', () => {
    expect(outcome(churn, [event(-3, 'page_view')])).toEqual({ label: true, amount: 0 });
    expect(outcome(churn, [event(-3, 'page_view'), event(6.9, 'ping')])).toEqual({ label: false, amount: 0 });
    // At the cutoff counts as after it (features read strictly before it); at cutoff + horizon is beyond it.
    expect(outcome(churn, [event(-3, 'page_view'), event(0, 'ping')]).label).toBe(false);
    expect(outcome(churn, [event(-3, 'page_view'), event(7, 'ping')]).label).toBe(true);
  });

  it('inactivity: predicts only for users active within activeDays, on the days-since-last-event value', () => {
    expect(inPopulation(churn, 0.5)).toBe(true);
    expect(inPopulation(churn, 7)).toBe(true);
    expect(inPopulation(churn, 7.01)).toBe(false);
    expect(inPopulation(purchase, 400)).toBe(true);
    expect(inPopulation(spend, 400)).toBe(true);
  });

  it('event: the target event within the horizon, not another', () => {
    expect(outcome(purchase, [event(-1, 'purchase'), event(2, 'page_view')]).label).toBe(false);
    expect(outcome(purchase, [event(-1, 'page_view'), event(2, 'purchase')]).label).toBe(true);
    expect(outcome(purchase, [event(8, 'purchase')]).label).toBe(false);
  });

  it('value: the property summed over the target events of the horizon; any value is a sum above 0', () => {
    const history = [
      event(-2, 'purchase', { amount: 100 }),
      event(1, 'purchase', { amount: 20 }),
      event(2, 'purchase', { amount: 5.5, items: 3 }),
      event(3, 'refund_viewed', { amount: 999 }),
      event(4, 'purchase', null),
      event(5, 'purchase', { items: 2 }),
      event(9, 'purchase', { amount: 50 }),
    ];
    expect(outcome(spend, history)).toEqual({ label: true, amount: 25.5 });
    expect(outcome(spend, [event(1, 'purchase', { items: 1 })])).toEqual({ label: false, amount: 0 });
    // A refund larger than the purchases: no value.
    expect(outcome(spend, [event(1, 'purchase', { amount: 10 }), event(2, 'purchase', { amount: -30 })])).toEqual({ label: false, amount: -20 });
  });
});
