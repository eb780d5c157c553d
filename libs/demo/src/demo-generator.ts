import type { EventInput } from '@foresight/events';
import { createRandom, DAY_MS, type Random } from '@foresight/platform';
import type { DemoUserTruth } from './demo-oracle';
import { type DemoIntentMode, type DemoProfile, drawProfile } from './demo-population';
import { clamp, exponential, gaussian, hashSeed, logNormal, pick, poisson } from './demo-random';

export interface DemoOptions {
  users: number;
  days: number;
  seed: number;
  /** -1..1; 0 is the reference population, other values a drifted one (see drawProfile). */
  shift: number;
  /** Prefix of the user ids, so several populations can live in one organization. */
  userPrefix: string;
  /** End of the timeline; events fall in [now - days, now]. */
  now: Date;
  /** Where buying and upgrade intent show (see DemoIntentSignal); `events` when absent. */
  intentSignal?: DemoIntentMode;
}

export const DEMO_DEFAULTS = { seed: 42, shift: 0, userPrefix: 'demo-', intentSignal: 'events' } as const;

export interface DemoUser {
  truth: DemoUserTruth;
  /** The user's events in time order. */
  events: EventInput[];
}

/** Sessions start at least this long before `now`, so their events (at most 15 gaps of 5 minutes) never land in the future. */
const SESSION_START_MARGIN_MS = 2 * 3600 * 1000;
const MAX_GAP_MS = 5 * 60 * 1000;
/** Pause before a session that was due while the previous one was still going. */
const SESSION_FOLLOW_MS = 60 * 1000;
const MAX_EVENTS_PER_SESSION = 15;
/** Users already around when the timeline starts; the others join at a uniform time within it. */
const EXISTING_USER_SHARE = 0.65;
const SKUS = Array.from({ length: 120 }, (_, i) => `sku-${String(i + 1).padStart(4, '0')}`);

interface Screens {
  view: 'screen_view' | 'page_view';
  key: 'screen' | 'url';
  press: 'tap' | 'click';
  generic: readonly string[];
  product: (sku: string) => string;
  pricing: string;
  cart: string;
  settings: string;
}

const MOBILE: Screens = {
  view: 'screen_view',
  key: 'screen',
  press: 'tap',
  generic: ['Home', 'Feed', 'Search', 'Account', 'Notifications'],
  product: () => 'ProductDetail',
  pricing: 'Pricing',
  cart: 'Cart',
  settings: 'Settings',
};
const WEB: Screens = {
  view: 'page_view',
  key: 'url',
  press: 'click',
  generic: ['/', '/blog', '/help', '/account', '/about'],
  product: (sku) => `/products/${sku}`,
  pricing: '/pricing',
  cart: '/cart',
  settings: '/account/settings',
};

/**
 * The demo population, one user at a time: a generator, so callers stream millions of events
 * without holding them. Deterministic: each user's data depends only on (seed, shift, user id),
 * and times are offsets from `now`, so re-running with the same seed yields the same messageIds.
 */
export function* generateDemoUsers(options: DemoOptions): Generator<DemoUser> {
  for (let index = 0; index < options.users; index++) yield generateDemoUser(options, index);
}

export function generateDemoUser(options: DemoOptions, index: number): DemoUser {
  const userId = `${options.userPrefix}${String(index).padStart(6, '0')}`;
  const intentSignal = options.intentSignal ?? DEMO_DEFAULTS.intentSignal;
  // The tag is part of every id, so populations of different seeds, shifts or signals never share a messageId.
  const tag = `${options.seed}${options.shift === 0 ? '' : `s${options.shift}`}${intentSignal === 'events' ? '' : `i${intentSignal}`}`;
  const random = createRandom(hashSeed(`${tag}|${userId}`));
  const profile = drawProfile(random, options.shift, intentSignal);
  const start = options.now.getTime() - options.days * DAY_MS;
  const span = options.days * DAY_MS - SESSION_START_MARGIN_MS;
  const joined = random() < EXISTING_USER_SHARE ? 0 : random() * span;
  const user = new UserTimeline(random, profile, userId, `demo-${tag}-${userId}`, `anon-${tag}-${userId}`, start);

  const meanGap = DAY_MS / profile.sessionsPerDay;
  for (let at = joined + exponential(random, meanGap); user.churnedAt === null; at += exponential(random, meanGap)) {
    const sessionStart = Math.max(at, user.endedAt + SESSION_FOLLOW_MS);
    if (sessionStart >= span) break;
    user.session(sessionStart);
  }
  const isoAt = (offset: number | null) => (offset === null ? null : new Date(start + offset).toISOString());
  return {
    truth: {
      userId,
      anonymousId: user.anonymousId,
      identifiedAt: isoAt(user.identifiedAt),
      platform: profile.platform,
      source: profile.source,
      joinedAt: new Date(start + joined).toISOString(),
      observedUntil: new Date(start + span).toISOString(),
      churnedAt: isoAt(user.churnedAt),
      sessionsPerDay: profile.sessionsPerDay,
      perSession: profile.perSession,
      latent: profile.latent,
    },
    events: user.events,
  };
}

/** One user's sessions, written as events; times are milliseconds after the timeline start. */
class UserTimeline {
  readonly events: EventInput[] = [];
  readonly anonymousId: string | null;
  churnedAt: number | null = null;
  identifiedAt: number | null = null;
  /** Time of the last event so far. */
  endedAt = -Infinity;
  private identified: boolean;
  /** Anonymous users sign up in their first, second or third session, or earlier if they convert. */
  private readonly identifyInSession: number;
  private sessions = 0;
  private readonly screens: Screens;
  private readonly context: Record<string, unknown>;
  private sessionId: string | undefined;
  private clock = 0;

  constructor(
    private readonly random: Random,
    private readonly profile: DemoProfile,
    private readonly userId: string,
    private readonly idPrefix: string,
    anonymousId: string,
    private readonly start: number,
  ) {
    this.anonymousId = profile.startsAnonymous ? anonymousId : null;
    this.identified = !profile.startsAnonymous;
    this.identifyInSession = Math.floor(random() * 3);
    this.screens = profile.platform === 'web' ? WEB : MOBILE;
    this.context =
      profile.source === 'sdk'
        ? { library: { name: 'foresight-demo-sdk', version: '1.0.0' }, os: { name: profile.platform } }
        : { library: { name: 'foresight-demo-server', version: '1.0.0' } };
  }

  session(startOffset: number): void {
    const { random, profile, screens } = this;
    const checkout = random() < profile.perSession.checkout;
    const upgrade = random() < profile.perSession.upgrade;
    const churn = random() < profile.perSession.churn;
    const converts = checkout || upgrade || churn;
    const identifies = !this.identified && (this.sessions >= this.identifyInSession || converts);
    const reserved = 2 * (Number(checkout) + Number(upgrade) + Number(churn)) + Number(identifies);
    const regular = clamp(1 + poisson(random, profile.style.eventsPerSession - 1), 1, MAX_EVENTS_PER_SESSION - reserved);

    this.sessionId = profile.source === 'sdk' ? `${this.idPrefix}-s${this.sessions}` : undefined;
    this.sessions++;
    this.clock = startOffset;
    this.land();
    if (identifies) this.identify();
    for (let i = 1; i < regular; i++) {
      const kind = random();
      if (kind < 0.42) {
        const shown = random();
        if (shown < profile.style.productShare) {
          const sku = pick(random, SKUS);
          this.view(screens.product(sku), true, sku);
          if (i + 1 < regular && random() < profile.style.addToCart) {
            i++;
            this.emit('add_to_cart', { sku, quantity: 1 + poisson(random, 0.3), hesitationMs: this.hesitation() });
          }
        } else if (shown < profile.style.productShare + profile.style.pricingShare) this.view(screens.pricing, true);
        else this.view(pick(random, screens.generic), false);
      } else if (kind < 0.7) {
        this.emit(screens.press, { element: pick(random, ['nav', 'card', 'button', 'link']), hesitationMs: this.hesitation() });
      } else if (kind < 0.92) {
        this.emit('scroll', { depth: Math.round(clamp(profile.style.scrollDepth + 0.18 * gaussian(random), 0, 1) * 100) / 100 });
      } else {
        this.emit('search', { results: poisson(random, 8) });
      }
    }
    if (checkout) {
      this.view(screens.cart, true);
      this.emit('checkout', { items: 1 + poisson(random, 0.6), value: Math.round(logNormal(random, 45, 0.5) * 100) / 100, currency: 'EUR' });
    }
    if (upgrade) {
      this.view(screens.pricing, true);
      this.emit('upgrade', { item: pick(random, ['plan', 'seats', 'add_on']) });
    }
    if (churn) {
      this.view(screens.settings, false);
      this.churnedAt = this.clock;
      this.emit('churn', { reason: pick(random, ['too_expensive', 'not_using', 'switched']) });
    }
  }

  /** Buyers often arrive straight on a product (a link, an ad, a notification). */
  private land(): void {
    const { random, profile, screens } = this;
    if (random() < profile.style.productShare / 2) {
      const sku = pick(random, SKUS);
      this.view(screens.product(sku), true, sku);
    } else this.view(pick(random, screens.generic), false);
  }

  /** `showsIntent`: a product, pricing or cart screen, where dwell (and in `screens` mode hesitation) follow intent. */
  private view(screen: string, showsIntent: boolean, sku?: string): void {
    const { style } = this.profile;
    const dwellMs = Math.round(Math.min(logNormal(this.random, showsIntent ? style.dwellMedianMs : style.browseDwellMedianMs, 0.6), MAX_GAP_MS));
    const properties: Record<string, unknown> = { [this.screens.key]: screen, dwellMs };
    if (sku !== undefined) properties.sku = sku;
    if (showsIntent && style.hesitationOnViews) properties.hesitationMs = this.hesitation();
    // The next event comes once the user has looked at this screen.
    this.emit(this.screens.view, properties, dwellMs);
  }

  private identify(): void {
    this.identified = true;
    this.identifiedAt = this.clock;
    this.emit('identify', { method: 'signup' });
  }

  private hesitation(): number {
    return Math.round(Math.min(logNormal(this.random, this.profile.style.hesitationMedianMs, 0.5), MAX_GAP_MS));
  }

  private emit(event: string, properties: Record<string, unknown>, gapAfterMs = Math.min(logNormal(this.random, 2500, 0.6), MAX_GAP_MS)): void {
    const input: EventInput = {
      event,
      messageId: `${this.idPrefix}-${this.events.length}`,
      timestamp: new Date(this.start + this.clock).toISOString(),
      properties,
      context: this.context,
    };
    if (this.identified) input.userId = this.userId;
    if (this.anonymousId !== null) input.anonymousId = this.anonymousId;
    if (this.sessionId !== undefined) input.sessionId = this.sessionId;
    this.events.push(input);
    this.endedAt = this.clock;
    this.clock += gapAfterMs;
  }
}
