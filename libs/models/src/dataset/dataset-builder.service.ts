import { Injectable } from '@nestjs/common';
import { type StoredUserId, UserEventsService } from '@foresight/events';
import {
  buildManifest,
  FEATURE_WINDOW_DAYS,
  type FeatureEvent,
  type FeatureManifest,
  featuresAt,
  firstIndexAtOrAfter,
} from '@foresight/features';
import { DAY_MS } from '@foresight/platform';
import type { TrainingSplit } from '../training';
import { RowBuffer } from './row-buffer';
import { ACTIVE_DAYS, isValidationUser, planTraining, type TrainingPlan } from './training-plan';

const TRACKED_EVENTS = 20;

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

/**
 * Builds the training matrix from the organization's events: each user's history, streamed in user
 * order (UserEventsService's training cursor, flat memory), is evaluated at weekly past cutoffs with the
 * same feature definitions serving uses; the label is whether the target event followed within the horizon.
 */
@Injectable()
export class DatasetBuilderService {
  constructor(private readonly userEvents: UserEventsService) {}

  async build(model: ModelDefinition): Promise<BuiltDataset> {
    const now = Date.now();
    const plan = planTraining(now, model.horizonDays);
    const loadFrom = new Date(plan.windowStart - FEATURE_WINDOW_DAYS * DAY_MS);
    const until = new Date(now);
    const manifest = buildManifest(await this.userEvents.frequentEvents(model.organizationId, loadFrom, until, TRACKED_EVENTS));
    const firstSeen = await this.userEvents.firstSeen(model.organizationId);
    const train = new RowBuffer(manifest.names.length);
    const validation = new RowBuffer(manifest.names.length);

    const addUser = (userId: StoredUserId, history: FeatureEvent[]) => {
      const held = isValidationUser(userId);
      for (const cutoff of held ? plan.validationCutoffs : plan.trainCutoffs) {
        const end = firstIndexAtOrAfter(history, cutoff);
        if (end === 0 || history[end - 1].occurredAt < cutoff - ACTIVE_DAYS * DAY_MS) continue;
        const vector = featuresAt(history, cutoff, manifest, firstSeen.get(userId));
        if (!vector) continue;
        let label = false;
        for (let i = end; i < history.length && history[i].occurredAt < cutoff + plan.horizonMs; i++) {
          if (history[i].event === model.targetEvent) label = true;
        }
        (held ? validation : train).push(vector, label);
      }
    };
    await this.userEvents.eachUserHistory(model.organizationId, loadFrom, until, addUser);
    return { split: { train: train.toSet(manifest.names), validation: validation.toSet(manifest.names) }, manifest, plan };
  }
}
