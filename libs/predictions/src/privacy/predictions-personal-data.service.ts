import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { deleteInBatches, type PersonalDataStore, PersonalDataStoreProvider } from '@foresight/platform';
import { PredictionCacheService } from '../serving/prediction-cache.service';

/** The prediction log, the outcomes matched to it, and this process's cached answers of a user. */
@Injectable()
@PersonalDataStoreProvider()
export class PredictionsPersonalDataService implements PersonalDataStore {
  readonly name = 'predictions';
  readonly userIdColumns = [
    { table: 'predictions', column: 'user_id' },
    { table: 'prediction_outcomes', column: 'user_id' },
  ];

  constructor(
    private readonly dataSource: DataSource,
    private readonly cache: PredictionCacheService,
  ) {}

  /** Each prediction with its outcome once its horizon has passed (`outcome` null before). */
  export(organizationId: string, userId: string): Promise<unknown[]> {
    return this.dataSource.query(
      `SELECT p.id::text, p.model_id AS "modelId", p.model_name AS model, p.version, p.label, p.confidence, p.inference_ms AS "inferenceMs",
              p.predicted_at AS timestamp,
              CASE WHEN o.prediction_id IS NULL THEN NULL
                   ELSE json_build_object('didTargetEvent', o.actual_positive, 'correct', o.predicted_positive = o.actual_positive, 'evaluatedAt', o.evaluated_at)
              END AS outcome
         FROM predictions p LEFT JOIN prediction_outcomes o ON o.prediction_id = p.id
        WHERE p.organization_id = $1 AND p.user_id = $2
        ORDER BY p.predicted_at, p.id`,
      [organizationId, userId],
    );
  }

  async erase(organizationId: string, userId: string): Promise<number> {
    this.cache.forget(organizationId, userId);
    return this.dataSource.transaction(async (manager) => {
      const [, outcomes] = await manager.query<[unknown[], number]>(`DELETE FROM prediction_outcomes WHERE organization_id = $1 AND user_id = $2`, [organizationId, userId]);
      const [, predictions] = await manager.query<[unknown[], number]>(`DELETE FROM predictions WHERE organization_id = $1 AND user_id = $2`, [organizationId, userId]);
      return Number(outcomes) + Number(predictions);
    });
  }

  /** Predictions (and their outcomes) older than `before`. */
  async expire(organizationId: string, before: Date): Promise<number> {
    const params = [organizationId, before.toISOString()];
    const outcomes = await deleteInBatches(this.dataSource, 'prediction_outcomes', 'organization_id = $1 AND predicted_at < $2', params);
    return outcomes + (await deleteInBatches(this.dataSource, 'predictions', 'organization_id = $1 AND predicted_at < $2', params));
  }

  async remaining(organizationId: string, userId: string): Promise<number> {
    const [{ n }] = await this.dataSource.query<{ n: string }[]>(
      `SELECT (SELECT count(*) FROM predictions WHERE organization_id = $1 AND user_id = $2)
            + (SELECT count(*) FROM prediction_outcomes WHERE organization_id = $1 AND user_id = $2) AS n`,
      [organizationId, userId],
    );
    return Number(n) + (this.cache.has(organizationId, userId) ? 1 : 0);
  }
}
