import type { Random } from '@foresight/platform';
import { clamp, gaussian, sigmoid } from './demo-random';

/** The SaaS mode's targets: a cancellation (once; the user never comes back) and a plan upgrade (free → team → business). */
export const SAAS_TARGETS = ['subscription_cancelled', 'plan_upgraded'] as const;
export type SaasTarget = (typeof SAAS_TARGETS)[number];

export const SAAS_TARGET_DESCRIPTIONS: Record<SaasTarget, string> = {
  subscription_cancelled: 'cancels (once); preceded by activity falling week over week, failed payments and support tickets',
  plan_upgraded: 'moves up a plan (free → team → business; repeatable until business); driven by team growth (invites, usage limits) and weekday use',
};

export const SAAS_PLANS = ['free', 'team', 'business'] as const;
/** Engagement levels 0 (about to leave) to 4 (power user): a user's hidden state, one step per day at most. */
export const SAAS_LEVELS = 5;
/** Sessions per day, relative to the user's own rate, at each level: activity falls as the level does. */
export const LEVEL_ACTIVITY = [0.08, 0.25, 0.55, 1, 1.5] as const;
/** Daily chance of cancelling at each level. */
export const LEVEL_CANCEL = [0.04, 0.007, 0.002, 0.0005, 0.0001] as const;
/** Added daily chance of cancelling while a failed payment is unresolved. */
export const DUNNING_CANCEL = 0.07;
/** Daily chance that a failed payment gets resolved (a new card). */
export const DUNNING_RESOLVE = 0.3;
/** Sessions start in the first 22 hours of their day, so their events never spill into the next one by much. */
export const SESSION_WINDOW_MS = 22 * 3600 * 1000;

/** The per-user parameters the hidden state moves with: everything the oracle needs besides the state itself. */
export interface SaasRates {
  /** Sessions per day at level 3 on an average weekday. */
  sessionsPerDay: number;
  /** Multiplier of the session rate per day of the week (UTC, Sunday first): team users work on weekdays. */
  weekday: number[];
  /** Daily chances of moving one level down / up. */
  down: number;
  up: number;
  /** Daily chance of a failed payment on a paid plan. */
  paymentFailure: number;
  /** Chance that one session upgrades, per current plan (0 on business: nothing above it). */
  upgradePerSession: number[];
}

/** Latent factors, each N(0, 1) but `teamUse` (0..1: the share of use that is team work on weekdays). */
export interface SaasLatent {
  fit: number;
  growth: number;
  cardRisk: number;
  teamUse: number;
}

/** Intercept chosen so that about 3% of recently active users upgrade within 7 days. */
const UPGRADE_INTERCEPT = -5.1;

export function drawSaasLatent(random: Random): SaasLatent {
  const growth = gaussian(random);
  return { fit: gaussian(random), growth, cardRisk: gaussian(random), teamUse: sigmoid(0.9 * growth + 0.8 * gaussian(random)) };
}

export function saasRates(random: Random, latent: SaasLatent): SaasRates {
  const weekend = 1 - 0.9 * latent.teamUse;
  const weekdayFactor = (7 - 2 * weekend) / 5;
  return {
    sessionsPerDay: clamp(0.9 * Math.exp(0.35 * gaussian(random)), 0.1, 4),
    weekday: [weekend, weekdayFactor, weekdayFactor, weekdayFactor, weekdayFactor, weekdayFactor, weekend],
    down: sigmoid(-3.1 - 0.9 * latent.fit),
    up: sigmoid(-3.4 + 0.6 * latent.fit),
    paymentFailure: sigmoid(-6 + 0.9 * latent.cardRisk),
    upgradePerSession: [
      sigmoid(UPGRADE_INTERCEPT + 1.3 * latent.growth + 1.5 * (latent.teamUse - 0.5)),
      sigmoid(UPGRADE_INTERCEPT - 0.6 + 1.3 * latent.growth + 1.5 * (latent.teamUse - 0.5)),
      0,
    ],
  };
}

/** Day `day`'s weekday (of the middle of its session window), for `SaasRates.weekday`. */
export function weekdayOf(timelineStart: number, day: number): number {
  return new Date(timelineStart + day * 86_400_000 + SESSION_WINDOW_MS / 2).getUTCDay();
}

export function cancelChance(level: number, dunning: boolean): number {
  return 1 - (1 - LEVEL_CANCEL[level]) * (1 - (dunning ? DUNNING_CANCEL : 0));
}
