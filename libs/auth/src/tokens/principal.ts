import type { Scope, TokenEnvironment } from './scopes';

/** Who is calling: everything a request may do is derived from this, never from the request itself. */
export interface Principal {
  readonly tokenId: string;
  readonly organizationId: string;
  readonly environment: TokenEnvironment;
  readonly scopes: readonly Scope[];
  readonly expiresAt: Date | null;
  readonly rateLimitPerMinute: number;
  readonly burstPerMinute: number;
}
