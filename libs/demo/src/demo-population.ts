import type { Random } from '@foresight/platform';
import { clamp, gaussian, sigmoid } from './demo-random';

/** The events the demo population does with a known per-user probability (models' `targetEvent`). */
export const DEMO_TARGETS = ['checkout', 'upgrade', 'churn'] as const;
export type DemoTarget = (typeof DEMO_TARGETS)[number];

export const DEMO_TARGET_DESCRIPTIONS: Record<DemoTarget, string> = {
  checkout: 'buys (repeatable); driven by buying intent and visit frequency',
  upgrade: 'expands the subscription (plan tier, seats, add-ons; repeatable); driven by upgrade intent, which correlates with buying intent',
  churn: 'cancels and never comes back (once); driven by low engagement and low buying intent',
};

export type DemoPlatform = 'web' | 'ios' | 'android';

/**
 * Where intent shows. `events`: in which events users send (add_to_cart, more and longer sessions) as
 * well as in what they look at. `screens`: only in which screens/pages they view, how long they dwell
 * there and how hesitantly they act; every event name, the session rate and length are intent-free,
 * as in a product whose events are all generic screen views and taps. `saas`: another product, a
 * subscription one (demo-saas.ts), with its own targets (SAAS_TARGETS): activity declining week over
 * week before cancellations, rare decisive events, plan and feature names in string properties.
 */
export const DEMO_INTENT_SIGNALS = ['events', 'screens', 'saas'] as const;
export type DemoIntentSignal = (typeof DEMO_INTENT_SIGNALS)[number];
/** The modes of this population (the checkout, upgrade and churn one); `saas` has its own generator. */
export type DemoIntentMode = Exclude<DemoIntentSignal, 'saas'>;

/**
 * Latent per-user factors, each N(mean, 1). `shift` moves the means (and the platform mix), which
 * is how a drifted population is made: the behavior mix and the target probabilities move together.
 */
export interface DemoLatent {
  engagement: number;
  buyIntent: number;
  upgradeIntent: number;
}

/** How a user behaves inside a session: noisy functions of the latent factors (what a model can see). */
export interface DemoStyle {
  /** Mean of the regular (non-conversion) events per session. */
  eventsPerSession: number;
  /** Share of screen/page views that are product pages. */
  productShare: number;
  /** Share of screen/page views that are the pricing page. */
  pricingShare: number;
  /** Probability that a product view is followed by add_to_cart (0 in `screens`). */
  addToCart: number;
  /** Mean scroll depth, 0..1. */
  scrollDepth: number;
  /** Median dwell on the screens that show intent (products, pricing, cart). */
  dwellMedianMs: number;
  /** Median dwell on every other screen. */
  browseDwellMedianMs: number;
  hesitationMedianMs: number;
  /** Views of intent screens carry the hesitation before the user acted on them. */
  hesitationOnViews: boolean;
}

export interface DemoProfile {
  latent: DemoLatent;
  platform: DemoPlatform;
  /** `sdk` users send a sessionId; `backend` users don't, so sessions are derived by inactivity. */
  source: 'sdk' | 'backend';
  /** The user browses anonymously first and identifies later (SDK users only). */
  startsAnonymous: boolean;
  /** Rate of the user's Poisson session process while alive. */
  sessionsPerDay: number;
  /** Probability that one session contains the target event (independent per session and target). */
  perSession: Record<DemoTarget, number>;
  style: DemoStyle;
}

const MEDIAN_SESSIONS_PER_DAY = 0.3;
/** Intercepts chosen so that, over 7 days after a cutoff, about 12% of recently active users check out, 6% upgrade, 4% churn. */
const CHECKOUT_INTERCEPT = -3.0;
const UPGRADE_INTERCEPT = -3.9;
const CHURN_INTERCEPT = -3.8;
/** How strongly intent sets the per-session target probability: the spread that makes the oracle AUC about 0.8. */
const INTENT_WEIGHT = 0.9;
/** Per-user noise on each style trait: behavior reveals intent, but not exactly. */
const STYLE_NOISE = 0.2;

/**
 * Draws one user's profile. `shift` in [-1, 1] (0: the reference population) moves the latent means
 * (engagement +0.5·shift, buying intent +0.9·shift, upgrade intent +0.7·shift) and the mobile share
 * (+0.35·shift): positive shifts give a more engaged, more buying population, negative ones the opposite.
 */
export function drawProfile(random: Random, shift: number, intentSignal: DemoIntentMode = 'events'): DemoProfile {
  const engagement = gaussian(random) + 0.5 * shift;
  const buyIntent = gaussian(random) + 0.9 * shift;
  // Buyers are likelier upgraders: correlation 0.4 between the two intents.
  const upgradeIntent = 0.4 * (buyIntent - 0.9 * shift) + Math.sqrt(1 - 0.16) * gaussian(random) + 0.7 * shift;
  const latent = { engagement, buyIntent, upgradeIntent };

  const mobileShare = clamp(0.45 + 0.35 * shift, 0.05, 0.95);
  const platform: DemoPlatform = random() < mobileShare ? (random() < 0.5 ? 'ios' : 'android') : 'web';
  const source = random() < 0.75 ? 'sdk' : 'backend';
  const startsAnonymous = source === 'sdk' && random() < 0.35;

  const inEvents = intentSignal === 'events' ? 1 : 0;
  // Power users (frequent, long sessions) are the ones who outgrow their plan.
  const sessionsPerDay = clamp(MEDIAN_SESSIONS_PER_DAY * Math.exp(0.4 * engagement + inEvents * (0.15 * buyIntent + 0.15 * upgradeIntent)), 0.02, 4);
  const perSession: Record<DemoTarget, number> = {
    checkout: sigmoid(CHECKOUT_INTERCEPT + INTENT_WEIGHT * buyIntent),
    upgrade: sigmoid(UPGRADE_INTERCEPT + INTENT_WEIGHT * upgradeIntent),
    churn: sigmoid(CHURN_INTERCEPT - 1.5 * engagement - 0.5 * buyIntent),
  };

  const noise = () => STYLE_NOISE * gaussian(random);
  const style: DemoStyle = {
    eventsPerSession: clamp(4 * Math.exp(0.3 * engagement + inEvents * (0.1 * buyIntent + 0.25 * upgradeIntent) + noise() / 2), 1.5, 12),
    productShare: sigmoid(-1 + 0.7 * buyIntent + noise()),
    pricingShare: 0.3 * sigmoid(-1.5 + 0.9 * upgradeIntent + noise()),
    // An add_to_cart event would name intent; in `screens` the product has none.
    addToCart: inEvents * sigmoid(-2 + buyIntent + noise()),
    scrollDepth: sigmoid(-0.2 + 0.2 * engagement + 0.35 * buyIntent + 0.25 * upgradeIntent + noise()),
    dwellMedianMs: 9000 * Math.exp(0.15 * engagement + 0.2 * buyIntent + 0.15 * upgradeIntent + noise()),
    browseDwellMedianMs: 0,
    hesitationMedianMs: 1100 * Math.exp(-0.3 * buyIntent - 0.2 * upgradeIntent + noise()),
    hesitationOnViews: !inEvents,
  };
  // Browsing dwell shows intent only when events do; in `screens` it is engagement alone.
  style.browseDwellMedianMs = inEvents ? style.dwellMedianMs : 9000 * Math.exp(0.15 * engagement);
  return { latent, platform, source, startsAnonymous, sessionsPerDay, perSession, style };
}
