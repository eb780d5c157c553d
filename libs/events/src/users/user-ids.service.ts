import { createHmac, hkdfSync } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { OrganizationsService } from '@foresight/auth';
import { APP_CONFIG, type AppConfig } from '@foresight/platform';
import type { CallerUser, StoredUserId } from './stored-user-id';

/** How long a process trusts an organization's hashUserIds setting before reading it again. */
const SETTING_TTL_MS = 5_000;

interface Pseudonymization {
  /** Undefined when the organization stores raw ids. */
  key: Buffer | undefined;
  readAt: number;
}

/**
 * The pseudonymizer: the one place a caller's user id becomes a StoredUserId, and a stored id the
 * name privacy records use. The HTTP and CLI edges resolve a caller's id once (`resolve`), ingestion
 * maps its batches (`pseudonymizer`), privacy looks for every form an id may be stored under
 * (`storedForms`); everything below takes StoredUserId only, so hashed and raw organizations behave
 * the same to callers.
 */
@Injectable()
export class UserIdsService {
  private readonly secret: Buffer;
  private readonly referenceKey: Buffer;
  private readonly settings = new Map<string, Pseudonymization>();
  private readonly pseudonymKeys = new Map<string, Buffer>();

  constructor(
    private readonly organizations: OrganizationsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    // Derived from the token pepper, not the encryption key: stored ids must survive key rotation.
    this.secret = Buffer.from(config.tokenPepper.reveal());
    this.referenceKey = derive(this.secret, 'foresight user reference', '');
  }

  /** A caller's user: the id as sent and as stored (a keyed HMAC when the organization has hashUserIds, else the id itself). */
  async resolve(organizationId: string, rawId: string): Promise<CallerUser> {
    return { id: rawId, stored: (await this.pseudonymizer(organizationId))(rawId) };
  }

  /** For batches: one settings look-up, then a synchronous mapping per id. */
  async pseudonymizer(organizationId: string): Promise<(rawId: string) => StoredUserId> {
    const { key } = await this.pseudonymization(organizationId);
    if (!key) return (rawId) => rawId as StoredUserId;
    return (rawId) => pseudonym(key, rawId);
  }

  /**
   * Every form a caller's id may be stored under, whatever the setting is now: hashUserIds applies to
   * data received from then on, so an organization that switched it holds the id as sent and as its
   * pseudonym. The key never changes (it is derived from the token pepper, not rotated), so there is
   * one pseudonym only.
   */
  storedForms(organizationId: string, rawId: string): StoredUserId[] {
    return [rawId as StoredUserId, pseudonym(this.pseudonymKey(organizationId), rawId)];
  }

  /** The userHash of each stored form of a caller's id: records made under either setting name the user by one of them. */
  userHashes(organizationId: string, rawId: string): string[] {
    return this.storedForms(organizationId, rawId).map((form) => this.userHash(organizationId, form));
  }

  /**
   * The caller's own id for a stored id the caller did not send (the user of a session): the same id
   * when the organization stores ids as sent; undefined when it hashes them, as the raw id is kept nowhere.
   */
  async callerIdOf(organizationId: string, storedId: StoredUserId): Promise<string | undefined> {
    const { key } = await this.pseudonymization(organizationId);
    return key ? undefined : storedId;
  }

  /**
   * Names a stored user id in erasure records, the suppression list and the audit log without
   * revealing it: HMAC-SHA-256 under a deployment key, scoped by organization.
   */
  userHash(organizationId: string, storedUserId: StoredUserId): string {
    return createHmac('sha256', this.referenceKey).update(organizationId).update('\0').update(storedUserId).digest('hex');
  }

  private async pseudonymization(organizationId: string): Promise<Pseudonymization> {
    const cached = this.settings.get(organizationId);
    if (cached && Date.now() - cached.readAt < SETTING_TTL_MS) return cached;
    const organization = await this.organizations.get(organizationId);
    const fresh = { key: organization.hashUserIds ? this.pseudonymKey(organizationId) : undefined, readAt: Date.now() };
    this.settings.set(organizationId, fresh);
    return fresh;
  }

  /** A key per organization: the same user in two organizations gets unrelated pseudonyms. */
  private pseudonymKey(organizationId: string): Buffer {
    let key = this.pseudonymKeys.get(organizationId);
    if (!key) {
      key = derive(this.secret, 'foresight pseudonymized user ids', organizationId);
      this.pseudonymKeys.set(organizationId, key);
    }
    return key;
  }
}

function pseudonym(key: Buffer, rawId: string): StoredUserId {
  return `psn_${createHmac('sha256', key).update(rawId).digest('base64url')}` as StoredUserId;
}

function derive(secret: Buffer, purpose: string, salt: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, salt, purpose, 32));
}
