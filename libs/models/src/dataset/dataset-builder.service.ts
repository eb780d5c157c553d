import { Inject, Injectable } from '@nestjs/common';
import { type StoredUserId, UserEventsService } from '@foresight/events';
import {
  buildManifest,
  FEATURE_WINDOW_DAYS,
  type FeatureChoice,
  type FeatureEvent,
  type FeatureManifest,
  featuresAt,
  firstIndexAtOrAfter,
  normaliseScreen,
} from '@foresight/features';
import { APP_CONFIG, type AppConfig, DAY_MS } from '@foresight/platform';
import type { TrainingSplit } from '../training';
import { IneligibleModelError } from './ineligible-model.error';
import { RowBuffer } from './row-buffer';
import { cutoffStepDays, isValidationUser, planTraining, TRAINING_WINDOW_DAYS, type TrainingPlan } from './training-plan';
import { planUserSample } from './user-sample';

const TRACKED_EVENTS = 20;
const TRACKED_SCREENS = 12;
const TRACKED_PROPERTIES = 8;
/** Raw screens read to find the top normalised ones (ids in paths make many raw values of one page). */
const SCREEN_CANDIDATES = 5_000;

export interface ModelDefinition {
  organizationId: string;
  targetEvent: string;
  horizonDays: number;
}

export interface BuiltDataset {
  split: TrainingSplit;
  manifest: FeatureManifest;
  plan: TrainingPlan;
}

/** Users with a positive row and users with a negative row: what the eligibility gate counts. */
interface ClassUsers {
  positive: number;
  negative: number;
}

/**
 * Builds the training matrix from the organization's events: each user's history, streamed in user
 * order (UserEventsService's training cursor, flat memory), is evaluated at past cutoffs (daily when
 * data is small, up to weekly) with the same feature definitions serving uses; the label is whether
 * the target event followed within the horizon. Beyond TRAINING_MAX_USERS users a sample is read,
 * chosen in the database: no structure here holds every user of the organization.
 */
@Injectable()
export class DatasetBuilderService {
  constructor(
    private readonly userEvents: UserEventsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async build(model: ModelDefinition, now = Date.now()): Promise<BuiltDataset> {
    // The window's start does not depend on the cutoffs' step, which depends on the sample read here.
    const loadFrom = new Date(now - (TRAINING_WINDOW_DAYS + FEATURE_WINDOW_DAYS) * DAY_MS);
    const until = new Date(now);
    const { maxUsers } = this.config.training;
    const { users, sampled, firstSeen } = await this.userEvents.trainingUsers(model.organizationId, model.targetEvent, loadFrom, until, maxUsers);
    const sample = planUserSample(users, maxUsers);
    const plan = planTraining(now, model.horizonDays, cutoffStepDays(sample.sampledUsers));
    const manifest = buildManifest(await this.chooseFeatures(model, loadFrom, until));
    const train = new RowBuffer(manifest.names.length);
    const tuning = new RowBuffer(manifest.names.length);
    const validation = new RowBuffer(manifest.names.length);
    const classUsers: ClassUsers = { positive: 0, negative: 0 };

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
        for (const cutoff of part.cutoffs) {
          // Every user seen before the cutoff counts, as every user is scored: a user long gone (who
          // cancelled, say, and cannot again) teaches the model what such a user is likely to do.
          const end = firstIndexAtOrAfter(history, cutoff);
          const vector = featuresAt(history, cutoff, manifest, firstSeen.get(userId));
          if (!vector) continue;
          let label = false;
          for (let i = end; i < history.length && history[i].occurredAt < cutoff + plan.horizonMs; i++) {
            if (history[i].event === model.targetEvent) label = true;
          }
          if (label) positive = true;
          else negative = true;
          part.rows.push(vector, label);
        }
      }
      if (positive) classUsers.positive++;
      if (negative) classUsers.negative++;
    };
    await this.userEvents.eachUserHistory(model.organizationId, loadFrom, until, sampled ? [...firstSeen.keys()] : null, addUser);
    this.requireEligible(model, classUsers);
    manifest.trainedOn = { users, sampledUsers: firstSeen.size, cutoffStepDays: plan.cutoffStepDays };
    return { split: { train: train.toSet(manifest.names), tuning: tuning.toSet(manifest.names), validation: validation.toSet(manifest.names) }, manifest, plan };
  }

  private requireEligible(model: ModelDefinition, users: ClassUsers): void {
    const minimum = this.config.training.minUsersPerClass;
    for (const [didTarget, found] of [[true, users.positive], [false, users.negative]] as const) {
      if (found < minimum) throw new IneligibleModelError(minimum, model.targetEvent, model.horizonDays, found, didTarget);
    }
  }

  /** The organization's own data decides what is described: its frequent events, screens and numeric properties, the signals it sends. */
  private async chooseFeatures(model: ModelDefinition, from: Date, until: Date): Promise<FeatureChoice> {
    const { organizationId } = model;
    const [trackedEvents, screens, signals] = await Promise.all([
      this.userEvents.frequentEvents(organizationId, from, until, TRACKED_EVENTS),
      this.userEvents.frequentScreens(organizationId, from, until, SCREEN_CANDIDATES),
      this.userEvents.signalsSent(organizationId, from, until),
    ]);
    const trackedProperties = await this.userEvents.frequentNumericProperties(organizationId, [...trackedEvents, model.targetEvent], from, until, TRACKED_PROPERTIES);
    return { trackedEvents, trackedScreens: topScreens(screens), trackedProperties, targetEvent: model.targetEvent, signals };
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
    .slice(0, TRACKED_SCREENS)
    .map(([screen]) => screen);
}
