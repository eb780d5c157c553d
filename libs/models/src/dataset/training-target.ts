import type { FeatureEvent } from '@foresight/features';
import type { Model } from '../registry/model.entity';

/** What a model predicts, as training and serving read it (CONTRACT.md, Models, `kind`). */
export type PredictionTarget =
  | { kind: 'event'; targetEvent: string }
  | { kind: 'inactivity'; activeDays: number }
  | { kind: 'value'; targetEvent: string; valueProperty: string };

/** A row's outcome over the horizon after its cutoff: the label, and for `value` the property's sum. */
export interface Outcome {
  label: boolean;
  /** `value`: the sum of the property over the horizon (0 for the other kinds). */
  amount: number;
}

/** The feature whose value decides an `inactivity` model's population, on both sides (the same float32 value). */
export const DAYS_SINCE_LAST_EVENT = 'days_since_last_event';

export function predictionTargetOf(model: Pick<Model, 'kind' | 'targetEvent' | 'activeDays' | 'valueProperty'>): PredictionTarget {
  const missing = (field: string) => new Error(`a ${model.kind} model without ${field}`);
  switch (model.kind) {
    case 'inactivity':
      if (model.activeDays === null) throw missing('activeDays');
      return { kind: 'inactivity', activeDays: model.activeDays };
    case 'value':
      if (model.targetEvent === null || model.valueProperty === null) throw missing('targetEvent and valueProperty');
      return { kind: 'value', targetEvent: model.targetEvent, valueProperty: model.valueProperty };
    default:
      if (model.targetEvent === null) throw missing('targetEvent');
      return { kind: 'event', targetEvent: model.targetEvent };
  }
}

/** The event whose own history is a feature and whose users the training sample is stratified by; none for `inactivity`. */
export function targetEventOf(target: PredictionTarget): string | undefined {
  return target.kind === 'inactivity' ? undefined : target.targetEvent;
}

/**
 * Whether a user whose last event was `daysSinceLastEvent` days before the cutoff (the feature value
 * the model reads) is one the model predicts for: an `inactivity` model's users were active within
 * its `activeDays` (GA4's churn population); the other kinds predict for every user seen.
 */
export function inPopulation(target: PredictionTarget, daysSinceLastEvent: number): boolean {
  return target.kind !== 'inactivity' || daysSinceLastEvent <= target.activeDays;
}

/**
 * The outcome of a user's sorted `history` from index `start` (the first event at or after the
 * cutoff) to `cutoff + horizonMs` (exclusive), the span the features never see:
 * - `event`: the target event happened;
 * - `inactivity`: no event at all happened (the user churned);
 * - `value`: the target event's `valueProperty` summed to more than 0 (`amount` is the sum; events without a finite value add nothing).
 */
export function outcomeAfter(target: PredictionTarget, history: readonly FeatureEvent[], start: number, cutoff: number, horizonMs: number): Outcome {
  const end = cutoff + horizonMs;
  if (target.kind === 'inactivity') return { label: !(start < history.length && history[start].occurredAt < end), amount: 0 };
  let label = false;
  let amount = 0;
  for (let i = start; i < history.length && history[i].occurredAt < end; i++) {
    if (history[i].event !== target.targetEvent) continue;
    if (target.kind === 'event') return { label: true, amount: 0 };
    const value = history[i].numbers?.[target.valueProperty];
    if (typeof value === 'number' && Number.isFinite(value)) amount += value;
  }
  if (target.kind === 'value') label = amount > 0;
  return { label, amount };
}

/** What a model predicts, in words (the CLI's listing): `"checkout" within 7 days`. */
export function predictionText(model: Pick<Model, 'kind' | 'targetEvent' | 'activeDays' | 'valueProperty' | 'horizonDays'>): string {
  const target = predictionTargetOf(model);
  const within = `within ${model.horizonDays} days`;
  if (target.kind === 'inactivity') return `no event at all ${within} (users active within ${target.activeDays} days)`;
  if (target.kind === 'value') return `sum of "${target.valueProperty}" of "${target.targetEvent}" ${within}`;
  return `"${target.targetEvent}" ${within}`;
}

/** How a kind's outcome reads in an eligibility failure: users who ... */
export function outcomeText(target: PredictionTarget, positive: boolean, horizonDays: number): string {
  switch (target.kind) {
    case 'inactivity':
      return `${positive ? 'sent no event' : 'sent an event'} within ${horizonDays} days after a training cutoff at which they were active within ${target.activeDays} days`;
    case 'value':
      return `${positive ? 'summed more than 0' : 'summed nothing'} of "${target.valueProperty}" of "${target.targetEvent}" within ${horizonDays} days after a training cutoff`;
    default:
      return `${positive ? 'did' : 'did not do'} "${target.targetEvent}" within ${horizonDays} days after a training cutoff`;
  }
}

