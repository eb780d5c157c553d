import { Injectable } from '@nestjs/common';
import { Encryptor } from '@foresight/platform';

/** The free-form, possibly personal parts of an event; first-class signals live in typed columns in clear. */
export type SealedField = 'properties' | 'context';

/**
 * Encryption at rest of event properties and context (XAES-256-GCM, platform Encryptor). Each value is
 * bound to its organization, message id and field, so a ciphertext copied onto another row or column
 * does not decrypt. Nothing here logs: decrypted values go straight back to the caller.
 */
@Injectable()
export class EventPayloadCipherService {
  constructor(private readonly encryptor: Encryptor) {}

  /** Stored in `encryption_key_id` beside every sealed row. */
  get keyId(): string {
    return this.encryptor.currentKeyId;
  }

  seal(organizationId: string, messageId: string, field: SealedField, value: Record<string, unknown> | undefined): string | null {
    return value === undefined ? null : this.encryptor.encrypt(JSON.stringify(value), boundTo(organizationId, messageId, field));
  }

  /** `keyId` null marks a row written before encryption at rest: its JSON is still plain text. */
  open(organizationId: string, messageId: string, field: SealedField, stored: string | null, keyId: string | null): Record<string, unknown> | null {
    if (stored === null) return null;
    const json = keyId === null ? stored : this.encryptor.decryptText(stored, boundTo(organizationId, messageId, field));
    return JSON.parse(json) as Record<string, unknown>;
  }
}

function boundTo(organizationId: string, messageId: string, field: SealedField): string {
  return `events.${field}:${organizationId}:${messageId}`;
}
