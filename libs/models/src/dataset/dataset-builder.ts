import { Injectable } from '@nestjs/common';
import { DataSource, type QueryRunner } from 'typeorm';
import {
  buildManifest,
  DAY_MS,
  FEATURE_WINDOW_DAYS,
  featuresAt,
  firstIndexAtOrAfter,
  type FeatureEvent,
  type FeatureManifest,
} from '@foresight/features';
import type { TrainingSplit } from '../training';
import { RowBuffer } from './row-buffer';
import { ACTIVE_DAYS, isValidationUser, planTraining, type TrainingPlan } from './training-plan';

const TRACKED_EVENTS = 20;
const FETCH_ROWS = 20_000;

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

/** An event's user: its userId, or the user its anonymousId was linked to (same rule as serving). */
const EFFECTIVE_USER = 'coalesce(e.user_id, i.user_id)';
const IDENTITY_JOIN = 'LEFT JOIN identities i ON i.organization_id = e.organization_id AND i.anonymous_id = e.anonymous_id';

/**
 * Builds the training matrix from the organization's events: each user's history, streamed in user
 * order through a server-side cursor (flat memory), is evaluated at weekly past cutoffs with the
 * same feature definitions serving uses; the label is whether the target event followed within the horizon.
 */
@Injectable()
export class DatasetBuilder {
  constructor(private readonly dataSource: DataSource) {}

  async build(model: ModelDefinition, now = Date.now()): Promise<BuiltDataset> {
    const plan = planTraining(now, model.horizonDays);
    const loadFrom = new Date(plan.windowStart - FEATURE_WINDOW_DAYS * DAY_MS).toISOString();
    const manifest = buildManifest(await this.trackedEvents(model.organizationId, loadFrom, now));
    const firstSeen = await this.firstSeen(model.organizationId);
    const train = new RowBuffer(manifest.names.length);
    const validation = new RowBuffer(manifest.names.length);

    const addUser = (userId: string, history: FeatureEvent[]) => {
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
    await this.streamHistories(model.organizationId, loadFrom, new Date(now).toISOString(), addUser);
    return { split: { train: train.toSet(manifest.names), validation: validation.toSet(manifest.names) }, manifest, plan };
  }

  /** The most frequent event names of the window: the per-event counts of the feature vector. */
  private async trackedEvents(organizationId: string, from: string, now: number): Promise<string[]> {
    const rows: Array<{ event: string }> = await this.dataSource.query(
      `SELECT event FROM events WHERE organization_id = $1 AND occurred_at >= $2 AND occurred_at < $3
        GROUP BY event ORDER BY count(*) DESC, event LIMIT ${TRACKED_EVENTS}`,
      [organizationId, from, new Date(now).toISOString()],
    );
    return rows.map((r) => r.event).sort();
  }

  private async firstSeen(organizationId: string): Promise<Map<string, number>> {
    const rows: Array<{ user_id: string; first_seen: Date }> = await this.dataSource.query(
      `SELECT ${EFFECTIVE_USER} AS user_id, min(e.occurred_at) AS first_seen
         FROM events e ${IDENTITY_JOIN}
        WHERE e.organization_id = $1 AND ${EFFECTIVE_USER} IS NOT NULL
        GROUP BY 1`,
      [organizationId],
    );
    return new Map(rows.map((r) => [r.user_id, r.first_seen.getTime()]));
  }

  private async streamHistories(
    organizationId: string,
    from: string,
    to: string,
    onUser: (userId: string, history: FeatureEvent[]) => void,
  ): Promise<void> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction('REPEATABLE READ');
      await runner.query(
        `DECLARE training_events NO SCROLL CURSOR FOR
           SELECT ${EFFECTIVE_USER} AS user_id, (extract(epoch FROM e.occurred_at) * 1000)::float8 AS t, e.event, e.session_id,
                  e.dwell_ms, e.hesitation_ms, e.scroll_depth
             FROM events e ${IDENTITY_JOIN}
            WHERE e.organization_id = $1 AND e.occurred_at >= $2 AND e.occurred_at < $3 AND ${EFFECTIVE_USER} IS NOT NULL
            ORDER BY 1, e.occurred_at`,
        [organizationId, from, to],
      );
      let current: string | undefined;
      let history: FeatureEvent[] = [];
      for (let batch = await fetchRows(runner); batch.length > 0; batch = await fetchRows(runner)) {
        for (const row of batch) {
          if (row.user_id !== current) {
            if (current !== undefined) onUser(current, history);
            current = row.user_id;
            history = [];
          }
          history.push({
            occurredAt: row.t,
            event: row.event,
            sessionId: row.session_id,
            dwellMs: row.dwell_ms,
            hesitationMs: row.hesitation_ms,
            scrollDepth: row.scroll_depth,
          });
        }
      }
      if (current !== undefined) onUser(current, history);
      await runner.commitTransaction();
    } catch (error) {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      throw error;
    } finally {
      await runner.release();
    }
  }
}

interface CursorRow {
  user_id: string;
  t: number;
  event: string;
  session_id: string | null;
  dwell_ms: number | null;
  hesitation_ms: number | null;
  scroll_depth: number | null;
}

function fetchRows(runner: QueryRunner): Promise<CursorRow[]> {
  return runner.query(`FETCH ${FETCH_ROWS} FROM training_events`);
}
