import { DAY_MS } from '@foresight/platform';
import { DEMO_TARGETS, type DemoIntentSignal, type DemoLatent, type DemoPlatform, type DemoTarget } from './demo-population';
import type { SaasUserTruth } from './demo-saas';
import { SAAS_TARGETS, type SaasTarget } from './demo-saas-model';
import { saasOracleProbability } from './demo-saas-oracle';

/**
 * Everything the generator knows about one user that matters after a cutoff. Plain JSON: it is
 * what `demo seed --truth-file` writes, and `oracleProbability` needs nothing else.
 */
export interface DemoUserTruth {
  userId: string;
  /** Set when the user started anonymous (their events carry it; after identifying, beside userId). */
  anonymousId: string | null;
  /** Timestamp of the user's identify event; null if they never identified within the timeline. */
  identifiedAt: string | null;
  platform: DemoPlatform;
  source: 'sdk' | 'backend';
  /** No session starts before this instant. */
  joinedAt: string;
  /** End of the simulated timeline: no session starts after it. */
  observedUntil: string;
  /** Timestamp of the user's churn event, if any; no session follows it. */
  churnedAt: string | null;
  sessionsPerDay: number;
  perSession: Record<DemoTarget, number>;
  latent: DemoLatent;
}

/**
 * The oracle: P(the user has at least one `target` event in (cutoff, cutoff + horizonDays]),
 * given the user's true parameters and whether they had churned by the cutoff.
 *
 * It is computed from the model that drives generation, not estimated from events. Sessions form
 * a Poisson process of rate `sessionsPerDay` from `joinedAt` until churn or `observedUntil`; each
 * session independently contains a checkout (p_c), an upgrade (p_u) and a churn (p_h; that session
 * is the last). Given the parameters the process is memoryless, so whether the user is still there
 * is the only part of the past that matters: this is the Bayes-optimal prediction from everything
 * the generator knows, including the latent parameters no model sees, so it bounds any model from
 * above. Its AUC on a holdout is the ceiling to compare a trained model's AUC with.
 *
 * With sessions of the target at rate a = r·p and sessions that churn without it at rate
 * b = r·(1 − p)·p_h (competing risks), P = a / (a + b) · (1 − e^{−(a + b)·L}), where L is the
 * part of the window inside [joinedAt, observedUntil] (the time in which sessions are simulated),
 * so the oracle matches labels computed from the generated events. For churn, P = 1 − e^{−r·p_h·L}.
 * Two approximations, negligible at day-scale horizons: a session's events trail its start by at
 * most ~75 minutes, so a session straddling a window edge can land on the other side; and a session
 * due while the previous one is still going starts right after it (minutes later).
 */
export function oracleProbability(truth: DemoUserTruth, target: DemoTarget, cutoff: Date, horizonDays: number): number {
  const at = cutoff.getTime();
  if (truth.churnedAt !== null && Date.parse(truth.churnedAt) <= at) return 0;
  const from = Math.max(at, Date.parse(truth.joinedAt));
  const until = Math.min(at + horizonDays * DAY_MS, Date.parse(truth.observedUntil));
  const exposureDays = Math.max(0, until - from) / DAY_MS;
  const rate = truth.sessionsPerDay;
  const churn = truth.perSession.churn;
  if (target === 'churn') return 1 - Math.exp(-rate * churn * exposureDays);
  const p = truth.perSession[target];
  const hit = rate * p;
  const leave = rate * (1 - p) * churn;
  if (hit + leave === 0) return 0;
  return (hit / (hit + leave)) * (1 - Math.exp(-(hit + leave) * exposureDays));
}

/** Any mode's per-user truth: the intent modes' (DemoUserTruth) or the SaaS mode's. */
export type DemoTruth = DemoUserTruth | SaasUserTruth;

/** The target events a mode's users do with a known probability. */
export function demoTargets(signal: DemoIntentSignal): readonly string[] {
  return signal === 'saas' ? SAAS_TARGETS : DEMO_TARGETS;
}

/** The oracle of the user's mode (oracleProbability or saasOracleProbability) for one of that mode's targets. */
export function demoOracleProbability(truth: DemoTruth, target: string, cutoff: Date, horizonDays: number): number {
  if ('mode' in truth) {
    if (!SAAS_TARGETS.includes(target as SaasTarget)) throw new Error(`"${target}" is not a target of the saas demo mode`);
    return saasOracleProbability(truth, target as SaasTarget, cutoff, horizonDays);
  }
  if (!DEMO_TARGETS.includes(target as DemoTarget)) throw new Error(`"${target}" is not a target of this demo mode`);
  return oracleProbability(truth, target as DemoTarget, cutoff, horizonDays);
}
