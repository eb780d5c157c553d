import { type StoredUserId, TrainingEvents } from '@foresight/events';
import {
  buildManifest,
  FEATURE_WINDOW_DAYS,
  type FeatureChoice,
  type FeatureEvent,
  type FeatureManifest,
  featuresAt,
  firstIndexAtOrAfter,
  narrowManifest,
  normaliseScreen,
} from '@foresight/features';
import { type AppConfig, DAY_MS } from '@foresight/platform';
import type { TrainingSplit } from '../training';
import { FEATURE_BUDGET, selectFeatures } from './feature-selection';
import { IneligibleModelError } from './ineligible-model.error';
import { RowBuffer } from './row-buffer';
import { cutoffStepDays, isValidationUser, planTraining, TRAINING_WINDOW_DAYS, type TrainingPlan, userCoin } from './training-plan';
import { DAYS_SINCE_LAST_EVENT, inPopulation, outcomeAfter, outcomeText, type PredictionTarget, targetEventOf } from './training-target';
import { planUserSample } from './user-sample';

/**
 * Candidates described before the choice (selectFeatures): enough that an organization's rare events
 * and screens are among them, as the choice on training rows, not frequency, decides what is kept.
 */
const CANDIDATE_EVENTS = 60;
const CANDIDATE_SCREENS = 12;
const CANDIDATE_PROPERTIES = 16;
const CANDIDATE_VALUES = 48;
/** A string property with more values than this names things (ids, titles), not states or kinds: its values are not described. */
const MAX_VALUES_PER_KEY = 20;
/** Training users whose rows the features are chosen on: the measure is stable long before all of them. */
const SELECTION_USERS = 4_000;
/** Raw screens read to find the top normalised ones (ids in paths make many raw values of one page). */
const SCREEN_CANDIDATES = 5_000;

export interface ModelDefinition {
  organizationId: string;
  target: PredictionTarget;
  horizonDays: number;
}

/**
 * An `inactivity` model's users outside its population at the cutoffs (seen, but not within
 * `activeDays`): how many rows, and the share that then sent no event within the horizon. Serving
 * answers such a user with this rate, the one honest figure the data gives for them.
 */
export interface DormantRate {
  rows: number;
  churned: number;
}

export interface BuiltDataset {
  split: TrainingSplit;
  manifest: FeatureManifest;
  plan: TrainingPlan;
  /** `inactivity` only. */
  dormant?: DormantRate;
  /** Where building the matrix took its time, in seconds: choosing the users, the candidates, the features, then reading the rows. */
  stepSeconds: { users: number; candidates: number; selection: number; rows: number };
}

/** Users with a positive row and users with a negative row: what the eligibility gate counts. */
interface ClassUsers {
  positive: number;
  negative: number;
}

/**
 * Builds the training matrix from the organization's events: each user's history, streamed in user
 * order (TrainingEvents' cursor, flat memory), is evaluated at past cutoffs (daily when
 * data is small, up to weekly) with the same feature definitions serving uses; the label is whether
 * the target event followed within the horizon. Beyond TRAINING_MAX_USERS users a sample is read,
 * chosen in the database: no structure here holds every user of the organization. It runs in a
 * training run's own process (training.process.ts), whose memory goes back to the system at its end.
 */
export class DatasetBuilder {
  constructor(
    private readonly events: TrainingEvents,
    private readonly config: Pick<AppConfig, 'training'>,
  ) {}

  async build(model: ModelDefinition, now = Date.now()): Promise<BuiltDataset> {
    const clock = stepClock();
    // The window's start does not depend on the cutoffs' step, which depends on the sample read here.
    const loadFrom = new Date(now - (TRAINING_WINDOW_DAYS + FEATURE_WINDOW_DAYS) * DAY_MS);
    const until = new Date(now);
    const { maxUsers } = this.config.training;
    const { target } = model;
    // An inactivity model has no target event: the sample is then stratified by nothing (an event no one sends).
    const { users, sampled, firstSeen } = await this.events.trainingUsers(model.organizationId, targetEventOf(target) ?? '', loadFrom, until, maxUsers);
    const sample = planUserSample(users, maxUsers);
    const plan = planTraining(now, model.horizonDays, cutoffStepDays(sample.sampledUsers));
    const usersSeconds = clock();
    const candidates = buildManifest(await this.chooseCandidates(model, loadFrom, until));
    const candidatesSeconds = clock();
    const manifest = await this.chooseFeatures(model, plan, candidates, firstSeen, loadFrom, until);
    const selectionSeconds = clock();
    const withAmounts = target.kind === 'value';
    const train = new RowBuffer(manifest.names.length, withAmounts);
    const tuning = new RowBuffer(manifest.names.length, withAmounts);
    const validation = new RowBuffer(manifest.names.length, withAmounts);
    const classUsers: ClassUsers = { positive: 0, negative: 0 };
    const dormant: DormantRate = { rows: 0, churned: 0 };

    // Validation users' rows at the holdout cutoffs calibrate and measure; the other users train before
    // those cutoffs and tune (early stopping, the search) at them: later in time, and no user on both sides.
    const heldOut = { cutoffs: plan.validationCutoffs, rows: validation };
    const parts = [
      { cutoffs: plan.trainCutoffs, rows: train },
      { cutoffs: plan.validationCutoffs, rows: tuning },
    ];
    const addUser = (userId: StoredUserId, history: FeatureEvent[]) => {
      let positive = false;
      let negative = false;
      for (const part of isValidationUser(userId) ? [heldOut] : parts) {
        eachRow(target, plan, manifest, history, firstSeen.get(userId), part.cutoffs, (vector, label, amount) => {
          if (label) positive = true;
          else negative = true;
          part.rows.push(vector, label, amount);
        }, (label) => {
          dormant.rows++;
          if (label) dormant.churned++;
        });
      }
      if (positive) classUsers.positive++;
      if (negative) classUsers.negative++;
    };
    await this.events.eachUserHistory(model.organizationId, loadFrom, until, sampled ? [...firstSeen.keys()] : null, addUser);
    this.requireEligible(model, classUsers);
    manifest.trainedOn = { users, sampledUsers: firstSeen.size, cutoffStepDays: plan.cutoffStepDays };
    const split = { train: train.toSet(manifest.names), tuning: tuning.toSet(manifest.names), validation: validation.toSet(manifest.names) };
    const stepSeconds = { users: usersSeconds, candidates: candidatesSeconds, selection: selectionSeconds, rows: clock() };
    return { split, manifest, plan, ...(target.kind === 'inactivity' && { dormant }), stepSeconds };
  }

  private requireEligible(model: ModelDefinition, users: ClassUsers): void {
    const minimum = this.config.training.minUsersPerClass;
    for (const [didTarget, found] of [[true, users.positive], [false, users.negative]] as const) {
      if (found < minimum) throw new IneligibleModelError(minimum, outcomeText(model.target, didTarget, model.horizonDays), found);
    }
  }

  /** The organization's own data decides what may be described: its events, screens and numeric properties, the signals it sends. */
  private async chooseCandidates(model: ModelDefinition, from: Date, until: Date): Promise<FeatureChoice> {
    const { organizationId } = model;
    const targetEvent = targetEventOf(model.target);
    const [trackedEvents, screens, signals] = await Promise.all([
      this.events.frequentEvents(organizationId, from, until, CANDIDATE_EVENTS),
      this.events.frequentScreens(organizationId, from, until, SCREEN_CANDIDATES),
      this.events.signalsSent(organizationId, from, until),
    ]);
    const events = targetEvent === undefined ? trackedEvents : [...trackedEvents, targetEvent];
    const [trackedProperties, trackedValues] = await Promise.all([
      this.events.frequentNumericProperties(organizationId, events, from, until, CANDIDATE_PROPERTIES),
      this.events.frequentStringValues(organizationId, events, from, until, MAX_VALUES_PER_KEY, CANDIDATE_VALUES),
    ]);
    return { trackedEvents, trackedScreens: topScreens(screens), trackedProperties, trackedValues, targetEvent, signals };
  }

  /**
   * The candidates narrowed to FEATURE_BUDGET features, chosen by what they say about the outcome on
   * training rows only (training users at training cutoffs, a sample of SELECTION_USERS of them): the
   * rows that tune and validate never take part in the choice.
   */
  private async chooseFeatures(
    model: ModelDefinition,
    plan: TrainingPlan,
    candidates: FeatureManifest,
    firstSeen: ReadonlyMap<StoredUserId, number>,
    from: Date,
    until: Date,
  ): Promise<FeatureManifest> {
    if (candidates.names.length <= FEATURE_BUDGET) return candidates;
    const users = [...firstSeen.keys()]
      .filter((userId) => !isValidationUser(userId))
      .map((userId) => ({ userId, coin: userCoin(userId, 'feature-selection') }))
      .sort((a, b) => a.coin - b.coin)
      .slice(0, SELECTION_USERS)
      .map(({ userId }) => userId);
    const rows = new RowBuffer(candidates.names.length);
    await this.events.eachUserHistory(model.organizationId, from, until, users, (userId, history) =>
      eachRow(model.target, plan, candidates, history, firstSeen.get(userId), plan.trainCutoffs, (vector, label) => rows.push(vector, label)),
    );
    return narrowManifest(candidates, selectFeatures(rows.toSet(candidates.names), FEATURE_BUDGET, [DAYS_SINCE_LAST_EVENT]));
  }
}

/**
 * A user's rows at `cutoffs`: each vector with its outcome, or, for a user outside the target's
 * population at the cutoff, only the outcome (`outside`). Every user seen before the cutoff counts, as
 * every user is scored: a user long gone (who cancelled, say, and cannot again) teaches the model what
 * such a user is likely to do.
 */
function eachRow(
  target: PredictionTarget,
  plan: TrainingPlan,
  manifest: FeatureManifest,
  history: readonly FeatureEvent[],
  firstSeenAt: number | undefined,
  cutoffs: readonly number[],
  onRow: (vector: Float32Array, label: boolean, amount: number) => void,
  outside?: (label: boolean) => void,
): void {
  const recency = manifest.names.indexOf(DAYS_SINCE_LAST_EVENT);
  for (const cutoff of cutoffs) {
    const end = firstIndexAtOrAfter(history, cutoff);
    const vector = featuresAt(history, cutoff, manifest, firstSeenAt);
    if (!vector) continue;
    const { label, amount } = outcomeAfter(target, history, end, cutoff, plan.horizonMs);
    // Decided on the feature value the model reads, so serving draws the same line (the scoring pipeline).
    if (!inPopulation(target, vector[recency])) outside?.(label);
    else onRow(vector, label, amount);
  }
}

/** The most viewed normalised screens, most viewed first (ties by name). */
function topScreens(rows: ReadonlyArray<{ screen: string; views: number }>): string[] {
  const views = new Map<string, number>();
  for (const row of rows) {
    const screen = normaliseScreen(row.screen);
    views.set(screen, (views.get(screen) ?? 0) + row.views);
  }
  return [...views]
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .slice(0, CANDIDATE_SCREENS)
    .map(([screen]) => screen);
}

/** Seconds since the clock's previous reading (its start, the first time). */
function stepClock(): () => number {
  let last = performance.now();
  return () => {
    const now = performance.now();
    const seconds = (now - last) / 1000;
    last = now;
    return seconds;
  };
}
