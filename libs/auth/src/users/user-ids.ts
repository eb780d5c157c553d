import { createHmac, hkdfSync } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@foresight/platform';
import { OrganizationsService } from '../organizations/organizations.service';

/** How long a process trusts an organization's hashUserIds setting before reading it again. */
const SETTING_TTL_MS = 5_000;

interface Pseudonymization {
  /** Undefined when the organization stores raw ids. */
  key: Buffer | undefined;
  readAt: number;
}

/**
 * The one place user ids are turned into what is stored and what names a user in privacy records.
 * Every path that takes a caller's user id (ingestion, predict, users export and delete) goes
 * through `pseudonymize`, so hashed and raw organizations behave the same to callers.
 */
@Injectable()
export class UserIds {
  private readonly secret: Buffer;
  private readonly referenceKey: Buffer;
  private readonly settings = new Map<string, Pseudonymization>();

  constructor(
    private readonly organizations: OrganizationsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    // Derived from the token pepper, not the encryption key: stored ids must survive key rotation.
    this.secret = Buffer.from(config.tokenPepper.reveal());
    this.referenceKey = derive(this.secret, 'foresight user reference', '');
  }

  /** The id as stored for the organization: a keyed HMAC when it has hashUserIds, else the id itself. */
  async pseudonymize(organizationId: string, rawId: string): Promise<string> {
    return (await this.pseudonymizer(organizationId))(rawId);
  }

  /** For batches: one settings look-up, then a synchronous mapping per id. */
  async pseudonymizer(organizationId: string): Promise<(rawId: string) => string> {
    const { key } = await this.pseudonymization(organizationId);
    if (!key) return (rawId) => rawId;
    return (rawId) => `psn_${createHmac('sha256', key).update(rawId).digest('base64url')}`;
  }

  /**
   * Names a stored user id in erasure records, the suppression list and the audit log without
   * revealing it: HMAC-SHA-256 under a deployment key, scoped by organization.
   */
  userHash(organizationId: string, storedUserId: string): string {
    return createHmac('sha256', this.referenceKey).update(organizationId).update('\0').update(storedUserId).digest('hex');
  }

  private async pseudonymization(organizationId: string): Promise<Pseudonymization> {
    const cached = this.settings.get(organizationId);
    if (cached && Date.now() - cached.readAt < SETTING_TTL_MS) return cached;
    const organization = await this.organizations.get(organizationId);
    // A key per organization: the same user in two organizations gets unrelated pseudonyms.
    const fresh = { key: organization.hashUserIds ? derive(this.secret, 'foresight pseudonymized user ids', organizationId) : undefined, readAt: Date.now() };
    this.settings.set(organizationId, fresh);
    return fresh;
  }
}

function derive(secret: Buffer, purpose: string, salt: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, salt, purpose, 32));
}
