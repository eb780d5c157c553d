import type { ApiToken } from './api-token.entity';
import type { Scope, TokenEnvironment } from './scopes';

/** How a token is shown to people and scripts: never its secret, only the last four characters. */
export interface TokenView {
  id: string;
  name: string | null;
  organizationId: string;
  environment: TokenEnvironment;
  scopes: Scope[];
  hint: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export function tokenView(token: ApiToken): TokenView {
  return {
    id: token.id,
    name: token.name,
    organizationId: token.organizationId,
    environment: token.environment,
    scopes: token.scopes,
    hint: token.hint,
    createdAt: token.createdAt.toISOString(),
    expiresAt: token.expiresAt?.toISOString() ?? null,
    revokedAt: token.revokedAt?.toISOString() ?? null,
    lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
  };
}
