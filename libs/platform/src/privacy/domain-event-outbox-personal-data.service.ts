import { Injectable } from '@nestjs/common';
import { SqlExecutor } from '../database/sql/sql-executor';
import {
  ERASE_OUTBOX_EVENTS_OF_USER,
  EXPIRE_OUTBOX_EVENTS,
  OUTBOX_EVENTS_OF_USER,
  REMOVE_USER_FROM_OUTBOX_BATCHES,
} from './domain-event-outbox-personal-data.sql';
import { type PersonalDataStore, PersonalDataStoreProvider } from './personal-data-store';

/**
 * Domain events published and not yet fanned out (the outbox, DomainEventsService): an event about
 * one user (prediction.updated) is erased whole, an audience batch loses the user and is still
 * announced. Their jobs in Redis are the queued-jobs store's.
 */
@Injectable()
@PersonalDataStoreProvider()
export class DomainEventOutboxPersonalDataService implements PersonalDataStore {
  readonly name = 'domainEventOutbox';
  readonly userIdColumns = [{ table: 'domain_event_outbox', column: 'user_id' }];

  constructor(private readonly sql: SqlExecutor) {}

  async export(organizationId: string, userId: string): Promise<unknown[]> {
    return (await this.sql.rows(OUTBOX_EVENTS_OF_USER, [organizationId, userId])).map((row) => ({ ...row.event, storedAt: row.created_at.toISOString() }));
  }

  async erase(organizationId: string, userId: string): Promise<number> {
    return (await this.sql.affected(ERASE_OUTBOX_EVENTS_OF_USER, [organizationId, userId])) + (await this.sql.affected(REMOVE_USER_FROM_OUTBOX_BATCHES, [organizationId, userId]));
  }

  async remaining(organizationId: string, userId: string): Promise<number> {
    return (await this.sql.rows(OUTBOX_EVENTS_OF_USER, [organizationId, userId])).length;
  }

  /** An event this old was never fanned out (its fan-out kept failing): it goes with the organization's data of its age. */
  expire(organizationId: string, before: Date): Promise<number> {
    return this.sql.affected(EXPIRE_OUTBOX_EVENTS, [organizationId, before]);
  }
}
