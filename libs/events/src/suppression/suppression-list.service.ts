import { Injectable } from '@nestjs/common';
import { SqlExecutor } from '@foresight/platform';
import type { CallerUser, StoredUserId } from '../users/stored-user-id';
import { UserEventsService } from '../users/user-events.service';
import { UserIdsService } from '../users/user-ids.service';
import { SUPPRESS_IDS, SUPPRESSED_IDS, UNSUPPRESS_USER } from './suppression-list.sql';

/** How long a process trusts its copy of an organization's list; other replicas see a change within this. */
const LIST_TTL_MS = 5_000;

interface CachedList {
  hashes: ReadonlySet<string>;
  readAt: number;
}

/**
 * Users whose future events are dropped at ingestion (erased with `suppress=true`), named by keyed
 * hashes (UserIdsService.userHash) so the list itself holds no user id. Ingestion reads a per-process
 * copy refreshed every few seconds: an organization with an empty list pays one Map look-up per request.
 */
@Injectable()
export class SuppressionListService {
  private readonly lists = new Map<string, CachedList>();

  constructor(
    private readonly sql: SqlExecutor,
    private readonly userIds: UserIdsService,
    private readonly userEvents: UserEventsService,
  ) {}

  /**
   * Suppresses every stored form of the user's id and of the anonymous ids linked to it now (call
   * before erasing the links), so the user's anonymous visits are dropped too, on either side of a
   * hashUserIds switch. A linked id stored as a pseudonym has no other form anyone can know: its
   * "pseudonym of the pseudonym" is listed too, harmlessly, as a stored id cannot be told from a sent one.
   */
  async suppress(organizationId: string, user: CallerUser): Promise<void> {
    const forms = this.userIds.storedForms(organizationId, user.id);
    const links = (await Promise.all(forms.map((form) => this.userEvents.linkedAnonymousIds(organizationId, form)))).flat();
    const ids = [...forms, ...links.flatMap((link) => this.userIds.storedForms(organizationId, link.anonymousId))];
    await this.sql.affected(SUPPRESS_IDS, [
      organizationId,
      ids.map((id) => this.userIds.userHash(organizationId, id)),
      this.userIds.userHash(organizationId, user.stored),
    ]);
    this.lists.delete(organizationId);
  }

  /** Lifts the suppression of the user and of its anonymous ids, made under either setting; false when the user was not suppressed. */
  async unsuppress(organizationId: string, user: CallerUser): Promise<boolean> {
    const removed = await this.sql.affected(UNSUPPRESS_USER, [organizationId, this.userIds.userHashes(organizationId, user.id)]);
    this.lists.delete(organizationId);
    return removed > 0;
  }

  /** A test for stored ids of one request, or undefined when the organization suppresses nobody. */
  async matcher(organizationId: string): Promise<((storedId: StoredUserId | null) => boolean) | undefined> {
    const { hashes } = await this.list(organizationId);
    if (hashes.size === 0) return undefined;
    return (storedId) => storedId !== null && hashes.has(this.userIds.userHash(organizationId, storedId));
  }

  private async list(organizationId: string): Promise<CachedList> {
    const cached = this.lists.get(organizationId);
    if (cached && Date.now() - cached.readAt < LIST_TTL_MS) return cached;
    const rows = await this.sql.rows(SUPPRESSED_IDS, [organizationId]);
    const fresh = { hashes: new Set(rows.map((row) => row.id_hash)), readAt: Date.now() };
    this.lists.set(organizationId, fresh);
    return fresh;
  }
}
