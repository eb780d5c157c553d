import { Injectable } from '@nestjs/common';
import { type PersonalDataStore, PersonalDataStoreProvider } from '@foresight/platform';
import { SessionsService } from '../sessions/sessions.service';
import { storedUserIdFromStorage } from '../users/stored-user-id';
import { UserEventsService } from '../users/user-events.service';

/**
 * Export-only views of the events store's tables: their rows are erased (and counted) by
 * EventsPersonalDataService, so these erase nothing themselves and declare no columns.
 */
abstract class ReadOnlyView {
  readonly userIdColumns = [];

  async erase(): Promise<number> {
    return 0;
  }

  async remaining(): Promise<number> {
    return 0;
  }
}

/** The user's sessions, derived from their events. */
@Injectable()
@PersonalDataStoreProvider()
export class SessionsPersonalDataService extends ReadOnlyView implements PersonalDataStore {
  readonly name = 'sessions';

  constructor(private readonly sessions: SessionsService) {
    super();
  }

  export(organizationId: string, userId: string): Promise<unknown[]> {
    return this.sessions.sessionsOf(organizationId, storedUserIdFromStorage(userId));
  }
}

/** The anonymous ids linked to the user. */
@Injectable()
@PersonalDataStoreProvider()
export class IdentitiesPersonalDataService extends ReadOnlyView implements PersonalDataStore {
  readonly name = 'identities';

  constructor(private readonly userEvents: UserEventsService) {
    super();
  }

  export(organizationId: string, userId: string): Promise<unknown[]> {
    return this.userEvents.linkedAnonymousIds(organizationId, storedUserIdFromStorage(userId));
  }
}
