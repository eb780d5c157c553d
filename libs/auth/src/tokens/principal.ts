import type { Role, RouteScope, Scope, TokenEnvironment } from './scopes';

interface CallerLimits {
  readonly organizationId: string;
  /** What the caller may do: the one thing the scope check reads, for tokens and people alike. */
  readonly scopes: readonly RouteScope[];
  readonly rateLimitPerMinute: number;
  readonly burstPerMinute: number;
}

/** A machine client (or a person who pasted a token into the dashboard). */
export interface TokenPrincipal extends CallerLimits {
  readonly kind: 'token';
  readonly tokenId: string;
  readonly environment: TokenEnvironment;
  readonly tokenScopes: readonly Scope[];
  readonly expiresAt: Date | null;
}

/** Who a person is, as their identity provider names them. */
export interface Person {
  readonly subject: string;
  readonly email: string | null;
  readonly name: string | null;
}

/** A person signed in to the dashboard through single sign-on. */
export interface PersonPrincipal extends CallerLimits {
  readonly kind: 'person';
  readonly sessionId: string;
  readonly person: Person;
  readonly role: Role;
}

/** Who is calling: everything a request may do is derived from this, never from the request itself. */
export type Principal = TokenPrincipal | PersonPrincipal;

/** The key of the caller's rate-limit bucket: its token, or its session. */
export function callerKey(principal: Principal): string {
  return principal.kind === 'token' ? principal.tokenId : principal.sessionId;
}
