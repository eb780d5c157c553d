import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { Scope, TokenEnvironment } from './scopes';

/** A token is stored only as a keyed hash; the secret is shown once, at creation. */
@Entity({ name: 'api_tokens' })
export class ApiToken {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ name: 'organization_id', type: 'text' })
  organizationId!: string;

  @Column({ type: 'text' })
  environment!: TokenEnvironment;

  @Column({ type: 'text', array: true })
  scopes!: Scope[];

  @Column({ name: 'secret_hash', type: 'bytea', select: false })
  secretHash!: Buffer;

  /** Given at creation (TOKEN_NAME_MAX_LENGTH printable characters at most); null when none was. */
  @Column({ type: 'text', nullable: true })
  name!: string | null;

  /** The last four characters, so people can tell their tokens apart. */
  @Column({ type: 'text' })
  hint!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  /** Recorded at most once a minute per token (see TokensService), so it is right to the minute. */
  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;
}
