import { Injectable } from '@nestjs/common';
import { deleteInBatches, type PersonalDataStore, PersonalDataStoreProvider, SqlExecutor } from '@foresight/platform';
import { PredictionCacheService } from '../serving/prediction-cache.service';
import { ERASE_USER_OUTCOMES, ERASE_USER_PREDICTIONS, EXPIRE_OUTCOMES, EXPIRE_PREDICTIONS, USER_PREDICTION_ROWS, USER_PREDICTIONS } from './predictions-personal-data.sql';

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
    private readonly sql: SqlExecutor,
    private readonly cache: PredictionCacheService,
  ) {}

  /** Each prediction with its outcome once its horizon has passed (`outcome` null before). */
  export(organizationId: string, userId: string): Promise<unknown[]> {
    return this.sql.rows(USER_PREDICTIONS, [organizationId, userId]);
  }

  async erase(organizationId: string, userId: string): Promise<number> {
    this.cache.forget(organizationId, userId);
    return this.sql.transaction(
      async (tx) => (await tx.affected(ERASE_USER_OUTCOMES, [organizationId, userId])) + (await tx.affected(ERASE_USER_PREDICTIONS, [organizationId, userId])),
    );
  }

  /** Predictions (and their outcomes) older than `before`. */
  async expire(organizationId: string, before: Date): Promise<number> {
    const params: [string, string] = [organizationId, before.toISOString()];
    const outcomes = await deleteInBatches(this.sql, EXPIRE_OUTCOMES, params);
    return outcomes + (await deleteInBatches(this.sql, EXPIRE_PREDICTIONS, params));
  }

  async remaining(organizationId: string, userId: string): Promise<number> {
    const [{ n }] = await this.sql.rows(USER_PREDICTION_ROWS, [organizationId, userId]);
    return Number(n) + (this.cache.has(organizationId, userId) ? 1 : 0);
  }
}
