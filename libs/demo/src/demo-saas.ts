import type { EventInput } from '@foresight/events';
import { createRandom, DAY_MS, type Random } from '@foresight/platform';
import { clamp, exponential, gaussian, hashSeed, logNormal, pick, poisson, sigmoid } from './demo-random';
import {
  cancelChance,
  drawSaasLatent,
  DUNNING_RESOLVE,
  LEVEL_ACTIVITY,
  SAAS_LEVELS,
  SAAS_PLANS,
  type SaasLatent,
  type SaasRates,
  saasRates,
  SESSION_WINDOW_MS,
  weekdayOf,
} from './demo-saas-model';

/** What the SaaS generator knows about one user: the oracle (saasOracleProbability) needs nothing else. */
export interface SaasUserTruth {
  mode: 'saas';
  userId: string;
  /** Start of the simulated timeline; day d covers [timelineStart + d days, + 1 day). */
  timelineStart: string;
  /** Simulated days in the timeline. */
  days: number;
  /** The user's first simulated day. */
  joinDay: number;
  joinedAt: string;
  /** Timestamp of the user's subscription_cancelled event, if any; nothing follows it. */
  cancelledAt: string | null;
  latent: SaasLatent;
  rates: SaasRates;
  /**
   * The hidden state of each day from joinDay on (index 0 is joinDay), set at the start of the day:
   * engagement level (0..4), plan (index in SAAS_PLANS) and whether a failed payment is unresolved (0/1).
   */
  state: { level: number[]; plan: number[]; dunning: number[] };
}

export interface SaasUser {
  truth: SaasUserTruth;
  events: EventInput[];
}

/** Users already subscribed when the timeline starts; the others sign up on a uniform day within it. */
const EXISTING_USER_SHARE = 0.65;
/** Chance that a user who just slipped to level 1 or 0 files a support ticket that day, and any user's everyday chance. */
const TICKET_ON_DROP = 0.35;
const TICKET_BASE = 0.003;
const MAX_GAP_MS = 5 * 60 * 1000;
const MAX_REGULAR_EVENTS = 12;
/** Chance per session, at the top level on the free plan, of buying add-on credits (a value model's target); per-plan factor below. */
const CREDIT_PURCHASE_RATE = 0.03;
/** Median credit purchase (EUR) per plan: larger plans buy larger packs. */
const CREDIT_MEDIAN_EUR = [10, 25, 60] as const;
const FEATURES = ['reports', 'exports', 'dashboards', 'automations', 'integrations', 'api', 'comments', 'calendar'] as const;
/** The screens that carry signal, each shown by the action it belongs to. */
const SIGNAL_SCREENS = { plans: 'Plans', billing: 'Billing', usage: 'Usage', team: 'Team members' } as const;
/** The other 46 screens: where people spend their time, none of which says anything about the targets. */
const GENERIC_SCREENS = [
  'Home', 'Dashboard', 'Projects', 'Project overview', 'Project settings', 'Tasks', 'Task detail', 'Board', 'Timeline', 'Calendar',
  'Inbox', 'Notifications', 'Search results', 'Reports', 'Report detail', 'Report builder', 'Exports', 'Dashboards', 'Dashboard editor', 'Automations',
  'Automation editor', 'Integrations', 'Integration detail', 'API keys', 'Webhooks', 'Docs', 'Doc editor', 'Files', 'File preview', 'Comments',
  'Activity', 'Profile', 'Preferences', 'Security', 'Templates', 'Template gallery', 'Goals', 'Goal detail', 'Forms', 'Form builder',
  'Help center', 'Changelog', "What's new", 'Onboarding', 'Getting started', 'Keyboard shortcuts',
] as const;
const LIMITS = ['seats', 'projects', 'storage', 'automation_runs'] as const;
const TICKET_TOPICS = ['bug', 'performance', 'missing_feature', 'billing'] as const;
const CONTEXT = { library: { name: 'foresight-demo-sdk', version: '1.0.0' }, os: { name: 'web' } };
const BACKEND_CONTEXT = { library: { name: 'foresight-demo-server', version: '1.0.0' } };

interface PendingEvent {
  at: number;
  event: string;
  properties: Record<string, unknown>;
  sessionId?: string;
}

export interface SaasOptions {
  users: number;
  days: number;
  seed: number;
  userPrefix: string;
  now: Date;
}

/** The SaaS population, one user at a time (as generateDemoUsers); deterministic in (seed, user id), times offsets from `now`. */
export function* generateSaasUsers(options: SaasOptions): Generator<SaasUser> {
  for (let index = 0; index < options.users; index++) {
    yield generateSaasUser(`${options.seed}isaas`, `${options.userPrefix}${String(index).padStart(6, '0')}`, options.days, options.now);
  }
}

/**
 * One SaaS user: a hidden engagement level that drifts down (or up) a step at a time, day by day, and
 * sets how often they come (sessions fall week over week before most cancellations) and how likely
 * they cancel; failed payments (billing, server-side) and support tickets (help desk, filed on the
 * day a user slips) are rare and precede cancellations; team growth shows in invites and usage limits
 * and drives upgrades, and team users work on weekdays. Deterministic in (tag, user id).
 */
function generateSaasUser(tag: string, userId: string, days: number, now: Date): SaasUser {
  const random = createRandom(hashSeed(`${tag}|${userId}`));
  // Credit purchases draw from their own stream, so adding them left every other draw of the population as it was.
  const spend = createRandom(hashSeed(`${tag}|${userId}|credits`));
  const latent = drawSaasLatent(random);
  const rates = saasRates(random, latent);
  const timelineStart = now.getTime() - days * DAY_MS;
  const existing = random() < EXISTING_USER_SHARE;
  const joinDay = existing ? 0 : Math.floor(random() * days);
  let level = existing ? clamp(Math.round(2.2 + 0.8 * latent.fit + 0.8 * gaussian(random)), 0, SAAS_LEVELS - 1) : 3;
  let plan = existing ? drawPlan(random, latent) : 0;
  let dunning = false;
  const state = { level: [] as number[], plan: [] as number[], dunning: [] as number[] };
  const pending: PendingEvent[] = [];
  const idPrefix = `demo-${tag}-${userId}`;
  let sessions = 0;
  let cancelledAt: number | null = null;
  let joinedAt = timelineStart + joinDay * DAY_MS;

  for (let day = joinDay; day < days && cancelledAt === null; day++) {
    const dayStart = timelineStart + day * DAY_MS;
    const inDay = () => dayStart + random() * SESSION_WINDOW_MS;
    const dayEvents = pending.length;
    let fileTicket = random() < TICKET_BASE;
    if (day > joinDay) {
      const move = random();
      if (move < rates.down && level > 0) {
        level--;
        // Users slipping to the bottom levels are the ones who write to support.
        if (level < 2) fileTicket ||= random() < TICKET_ON_DROP;
      } else if (move >= rates.down && move < rates.down + rates.up && level < SAAS_LEVELS - 1) level++;
      if (dunning) {
        if (random() < DUNNING_RESOLVE) {
          dunning = false;
          pending.push({ at: inDay(), event: 'payment_method_updated', properties: { plan: SAAS_PLANS[plan] } });
        }
      } else if (plan > 0 && random() < rates.paymentFailure) {
        dunning = true;
        pending.push({ at: inDay(), event: 'payment_failed', properties: { plan: SAAS_PLANS[plan], attempt: 1, amountEur: plan === 1 ? 49 : 199 } });
      }
    } else if (!existing) {
      joinedAt = inDay();
      pending.push({ at: joinedAt, event: 'signed_up', properties: { plan: 'free' } });
    }
    if (fileTicket) pending.push({ at: inDay(), event: 'support_ticket_created', properties: { topic: level < 2 ? pick(random, TICKET_TOPICS) : 'how_to' } });
    state.level.push(level);
    state.plan.push(plan);
    state.dunning.push(dunning ? 1 : 0);

    const rate = rates.sessionsPerDay * LEVEL_ACTIVITY[level] * rates.weekday[weekdayOf(timelineStart, day)];
    const starts = Array.from({ length: poisson(random, rate) }, inDay).sort((a, b) => a - b);
    let clock = day === joinDay && !existing ? joinedAt + 1000 : -Infinity;
    for (const start of starts) {
      const session: SessionWriter = { random, level, pending, sessionId: `${idPrefix}-s${sessions++}`, clock: Math.max(start, clock + 60_000) };
      regularEvents(session, plan, latent);
      // Engaged users on paid plans buy credits more often, growing teams more; the amount follows the plan.
      if (spend() < CREDIT_PURCHASE_RATE * (LEVEL_ACTIVITY[level] / 1.5) * (1 + plan) * (1 + 0.5 * Math.max(0, latent.growth))) {
        emit(session, 'credits_purchased', { amountEur: Math.round(logNormal(spend, CREDIT_MEDIAN_EUR[plan] * (1 + 0.1 * level), 0.6)), plan: SAAS_PLANS[plan] }, 30_000);
      }
      if (random() < rates.upgradePerSession[plan]) {
        view(session, SIGNAL_SCREENS.plans);
        emit(session, 'plan_upgraded', { from: SAAS_PLANS[plan], plan: SAAS_PLANS[plan + 1] });
        plan++;
      }
      clock = session.clock;
    }
    if (random() < cancelChance(level, dunning)) {
      // The day's last act: after its sessions and its billing and help desk events.
      const after = Math.max(clock, ...pending.slice(dayEvents).map((e) => e.at)) + 60_000;
      const session: SessionWriter = { random, level, pending, sessionId: `${idPrefix}-s${sessions++}`, clock: Math.max(inDay(), after) };
      view(session, SIGNAL_SCREENS.billing);
      const reason = dunning ? 'payment_failed' : level < 2 ? 'not_using' : pick(random, ['too_expensive', 'missing_feature', 'switched']);
      cancelledAt = session.clock;
      emit(session, 'subscription_cancelled', { plan: SAAS_PLANS[plan], reason });
    }
  }

  // Backend events (billing, help desk) fall between sessions: one time order, then the messageIds.
  pending.sort((a, b) => a.at - b.at);
  const events = pending.map(({ at, event, properties, sessionId }, index): EventInput => {
    const input: EventInput = {
      event,
      messageId: `${idPrefix}-${index}`,
      timestamp: new Date(at).toISOString(),
      userId,
      properties,
      context: sessionId === undefined ? BACKEND_CONTEXT : CONTEXT,
    };
    if (sessionId !== undefined) input.sessionId = sessionId;
    return input;
  });
  const iso = (at: number | null) => (at === null ? null : new Date(at).toISOString());
  return {
    truth: {
      mode: 'saas',
      userId,
      timelineStart: new Date(timelineStart).toISOString(),
      days,
      joinDay,
      joinedAt: new Date(joinedAt).toISOString(),
      cancelledAt: iso(cancelledAt),
      latent,
      rates,
      state,
    },
    events,
  };
}

/** Existing customers: growing teams are likelier on a paid plan. */
function drawPlan(random: Random, latent: SaasLatent): number {
  const paid = sigmoid(-0.6 + 0.6 * latent.growth);
  return random() < paid ? (random() < 0.3 ? 2 : 1) : 0;
}

interface SessionWriter {
  random: Random;
  /** The user's engagement level that day: how much they do, and how long they dwell. */
  level: number;
  pending: PendingEvent[];
  sessionId: string;
  clock: number;
}

/** The everyday part of a session: screens, features, items; usage limits and invites for growing teams. */
function regularEvents(session: SessionWriter, plan: number, latent: SaasLatent): void {
  const { random, level } = session;
  view(session, pick(random, GENERIC_SCREENS));
  const count = clamp(poisson(random, 1.5 + level), 0, MAX_REGULAR_EVENTS);
  for (let i = 0; i < count; i++) {
    const kind = random();
    if (kind < 0.5) view(session, pick(random, GENERIC_SCREENS));
    // Users on their way out export their data.
    else if (kind < 0.75) emit(session, 'feature_used', { feature: level < 2 && random() < 0.3 ? 'exports' : pick(random, FEATURES), plan: SAAS_PLANS[plan] });
    else if (kind < 0.88) emit(session, 'item_created', { kind: pick(random, ['project', 'task', 'doc', 'goal']) });
    else if (kind < 0.95) emit(session, 'search', { results: poisson(random, 6) });
    else emit(session, 'comment_added', { length: Math.round(logNormal(random, 80, 0.8)) });
  }
  if (plan < SAAS_PLANS.length - 1 && random() < sigmoid(-3.3 + 1.1 * latent.growth)) {
    view(session, SIGNAL_SCREENS.usage);
    emit(session, 'usage_limit_reached', { limit: pick(random, LIMITS), plan: SAAS_PLANS[plan] });
  }
  if (random() < sigmoid(-3.8 + latent.growth + 1.2 * latent.teamUse)) {
    view(session, SIGNAL_SCREENS.team);
    emit(session, 'member_invited', { role: random() < 0.8 ? 'member' : 'admin' });
  }
}

/** Dwell is heavy-tailed (a tab left open): its median, not its mean, says how engaged the user is. */
function view(session: SessionWriter, screen: string): void {
  const dwellMs = Math.round(Math.min(logNormal(session.random, 4000 * Math.exp(0.25 * session.level), 1.1), 30 * 60 * 1000));
  emit(session, 'screen_view', { screen, dwellMs }, Math.min(dwellMs, MAX_GAP_MS));
}

function emit(session: SessionWriter, event: string, properties: Record<string, unknown>, gapAfterMs = Math.min(exponential(session.random, 4000), MAX_GAP_MS)): void {
  session.pending.push({ at: session.clock, event, properties, sessionId: session.sessionId });
  session.clock += gapAfterMs;
}
