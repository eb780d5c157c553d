import { DAY_MS } from '@foresight/platform';
import type { SaasUserTruth } from './demo-saas';
import { cancelChance, DUNNING_RESOLVE, LEVEL_ACTIVITY, SAAS_LEVELS, SAAS_PLANS, type SaasTarget, SESSION_WINDOW_MS, weekdayOf } from './demo-saas-model';

const PLANS = SAAS_PLANS.length;
const stateIndex = (level: number, plan: number, dunning: number) => (level * PLANS + plan) * 2 + dunning;
const STATES = SAAS_LEVELS * PLANS * 2;

/**
 * The SaaS oracle: P(the user has at least one `target` event in (cutoff, cutoff + horizonDays]),
 * given the hidden state of the cutoff's day and the user's true rates, by forward recursion over the
 * 30 states (level, plan, unresolved payment) the generator moves through day by day. Exact for whole
 * days; the cutoff's day and the window's last day count by the share of their session window inside
 * the window (a cancellation or a session straddling the cutoff is split the same way).
 */
export function saasOracleProbability(truth: SaasUserTruth, target: SaasTarget, cutoff: Date, horizonDays: number): number {
  const at = cutoff.getTime();
  if (truth.cancelledAt !== null && Date.parse(truth.cancelledAt) <= at) return 0;
  const start = Date.parse(truth.timelineStart);
  const end = at + horizonDays * DAY_MS;
  const firstDay = Math.max(truth.joinDay, Math.floor((at - start) / DAY_MS));
  const lastDay = Math.min(truth.days - 1, Math.floor((end - start) / DAY_MS));
  const known = Math.min(firstDay - truth.joinDay, truth.state.level.length - 1);
  if (lastDay < firstDay || known < 0) return 0;
  const { rates } = truth;

  let mass: Float64Array = new Float64Array(STATES);
  mass[stateIndex(truth.state.level[known], truth.state.plan[known], truth.state.dunning[known])] = 1;
  let hit = 0;
  for (let day = firstDay; day <= lastDay; day++) {
    if (day > firstDay) mass = nextDay(mass, truth);
    const windowStart = start + day * DAY_MS;
    const share = clampShare((Math.min(end, windowStart + SESSION_WINDOW_MS) - Math.max(at, windowStart)) / SESSION_WINDOW_MS);
    const sessions = rates.sessionsPerDay * rates.weekday[weekdayOf(start, day)] * share;
    const after = new Float64Array(STATES);
    for (let s = 0; s < STATES; s++) {
      if (mass[s] === 0) continue;
      const dunning = s % 2;
      const plan = Math.floor(s / 2) % PLANS;
      const level = Math.floor(s / 2 / PLANS);
      const upgrades = 1 - Math.exp(-sessions * LEVEL_ACTIVITY[level] * rates.upgradePerSession[plan]);
      const cancels = cancelChance(level, dunning === 1) * share;
      if (target === 'plan_upgraded') {
        hit += mass[s] * upgrades;
        after[s] += mass[s] * (1 - upgrades) * (1 - cancels);
      } else {
        hit += mass[s] * cancels;
        // An upgrade moves the user up a plan (failed payments start on paid plans).
        const upgraded = plan + 1 < PLANS ? upgrades : 0;
        after[s] += mass[s] * (1 - upgraded) * (1 - cancels);
        if (upgraded > 0) after[stateIndex(level, plan + 1, dunning)] += mass[s] * upgraded * (1 - cancels);
      }
    }
    mass = after;
  }
  return hit;
}

/** The day-start moves of the generator: one level down or up, then a failed payment resolved or a new one. */
function nextDay(mass: Float64Array, truth: SaasUserTruth): Float64Array {
  const { down, up, paymentFailure } = truth.rates;
  const next = new Float64Array(STATES);
  for (let s = 0; s < STATES; s++) {
    if (mass[s] === 0) continue;
    const dunning = s % 2;
    const plan = Math.floor(s / 2) % PLANS;
    const level = Math.floor(s / 2 / PLANS);
    const pDown = level > 0 ? down : 0;
    const pUp = level < SAAS_LEVELS - 1 ? up : 0;
    const pFail = dunning === 1 ? 1 - DUNNING_RESOLVE : plan > 0 ? paymentFailure : 0;
    for (const [toLevel, pLevel] of [[level - 1, pDown], [level + 1, pUp], [level, 1 - pDown - pUp]] as const) {
      if (pLevel === 0) continue;
      next[stateIndex(toLevel, plan, 1)] += mass[s] * pLevel * pFail;
      next[stateIndex(toLevel, plan, 0)] += mass[s] * pLevel * (1 - pFail);
    }
  }
  return next;
}

function clampShare(share: number): number {
  return share < 0 ? 0 : share > 1 ? 1 : share;
}
