import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PersonalDataStoreProvider, type PersonalDataStore } from '@foresight/platform';
import { PredictionCache } from '../serving/prediction-cache';

/** The prediction log and the cached answers of a user. */
@Injectable()
@PersonalDataStoreProvider()
export class PredictionsPersonalData implements PersonalDataStore {
  readonly name = 'predictions';
  readonly userIdColumns = [{ table: 'predictions', column: 'user_id' }];

  constructor(
    private readonly dataSource: DataSource,
    private readonly cache: PredictionCache,
  ) {}

  export(organizationId: string, userId: string): Promise<unknown[]> {
    return this.dataSource.query(
      `SELECT id::text, model_id AS "modelId", model_name AS model, version, label, confidence, inference_ms AS "inferenceMs", predicted_at AS timestamp
         FROM predictions WHERE organization_id = $1 AND user_id = $2 ORDER BY predicted_at, id`,
      [organizationId, userId],
    );
  }

  async erase(organizationId: string, userId: string): Promise<number> {
    await this.cache.forget(organizationId, userId);
    const [, affected] = await this.dataSource.query(`DELETE FROM predictions WHERE organization_id = $1 AND user_id = $2`, [organizationId, userId]);
    return Number(affected);
  }

  async remaining(organizationId: string, userId: string): Promise<number> {
    const [{ n }] = await this.dataSource.query(`SELECT count(*) AS n FROM predictions WHERE organization_id = $1 AND user_id = $2`, [organizationId, userId]);
    return Number(n) + ((await this.cache.has(organizationId, userId)) ? 1 : 0);
  }
}
