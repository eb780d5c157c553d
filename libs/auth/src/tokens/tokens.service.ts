import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { APP_CONFIG, type AppConfig, AppError, DAY_MS, newId, notFound, printableText, SqlExecutor } from '@foresight/platform';
import { ApiToken } from './api-token.entity';
import type { TokenPrincipal } from './principal';
import { type Scope, type TokenEnvironment, tokenRouteScopes } from './scopes';
import { generateTokenSecret, hashTokenSecret, looksLikeToken } from './token-secret';
import { NOTE_TOKEN_USE, REVOKE_TOKEN, TOKEN_BY_SECRET_HASH } from './tokens.sql';

/** A token's name: printable text, as the api_tokens check allows. */
export const tokenNameSchema = printableText(100);

export interface IssueToken {
  organizationId: string;
  /** Validated by the caller with tokenNameSchema. */
  name?: string;
  environment: TokenEnvironment;
  scopes: readonly Scope[];
  expiresInDays?: number;
}

export interface IssuedToken {
  token: ApiToken;
  /** The only time the secret exists outside the caller's hands. */
  secret: string;
}

/**
 * How long a verified token is trusted without asking Postgres again. Revocation and expiry
 * take effect on every replica within this time, with no cross-replica messaging to fail.
 */
const VERIFIED_TOKEN_TTL_MS = 500;
const MAX_CACHED_TOKENS = 10_000;
/**
 * Refused secrets are remembered as briefly, in a small cache of their own: a flood of made-up tokens
 * must never push real ones out of the verified cache (each push would cost them an HMAC and a query).
 */
const MAX_REFUSED_TOKENS = 1_000;
/** A token's last use is written at most this often: a busy token costs one UPDATE a minute, not one per lookup. */
const LAST_USED_RESOLUTION_MS = 60_000;

interface CachedVerification {
  principal: TokenPrincipal;
  verifiedAt: number;
}

@Injectable()
export class TokensService {
  private readonly verified = new Map<string, CachedVerification>();
  /** Secret → when its lookup found no usable token. */
  private readonly refused = new Map<string, number>();

  constructor(
    @InjectRepository(ApiToken) private readonly tokens: Repository<ApiToken>,
    private readonly sql: SqlExecutor,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async issue(input: IssueToken): Promise<IssuedToken> {
    if (input.scopes.length === 0) throw new AppError('invalid_request', 'scopes: at least one scope');
    if (input.expiresInDays !== undefined && !(Number.isInteger(input.expiresInDays) && input.expiresInDays >= 1)) {
      throw new AppError('invalid_request', 'expiresInDays: a whole number of days, at least 1');
    }
    const secret = generateTokenSecret(input.environment);
    const token = this.tokens.create({
      id: newId('tok'),
      name: input.name ?? null,
      organizationId: input.organizationId,
      environment: input.environment,
      scopes: [...new Set(input.scopes)],
      secretHash: this.hash(secret),
      hint: secret.slice(-4),
      expiresAt: input.expiresInDays === undefined ? null : new Date(Date.now() + input.expiresInDays * DAY_MS),
      revokedAt: null,
    });
    await this.tokens.insert(token);
    return { token: await this.get(input.organizationId, token.id), secret };
  }

  /**
   * True when this secret was verified as a live token by this process, however long ago (until it is
   * found revoked or leaves the cache). Requests carrying anything else are limited per client address
   * before authenticate() may look them up.
   */
  wasVerified(secret: string): boolean {
    return this.verified.has(secret);
  }

  /** Resolves a bearer secret to its principal, or throws `invalid_token`. */
  async authenticate(secret: string): Promise<TokenPrincipal> {
    if (!looksLikeToken(secret)) throw invalidToken('The token is malformed.');
    const now = Date.now();
    // Keyed by the presented secret (kept in memory only), so a cached token costs no HMAC.
    let cached = this.verified.get(secret);
    if (!cached || now - cached.verifiedAt >= VERIFIED_TOKEN_TTL_MS) {
      const refusedAt = this.refused.get(secret);
      if (refusedAt !== undefined && now - refusedAt < VERIFIED_TOKEN_TTL_MS) throw unknownToken();
      const principal = await this.lookup(this.hash(secret));
      if (!principal) {
        this.verified.delete(secret);
        remember(this.refused, secret, now, MAX_REFUSED_TOKENS);
        throw unknownToken();
      }
      cached = { principal, verifiedAt: now };
      remember(this.verified, secret, cached, MAX_CACHED_TOKENS);
    }
    const { principal } = cached;
    if (principal.expiresAt && principal.expiresAt.getTime() <= now) throw invalidToken('The token has expired.');
    return principal;
  }

  list(organizationId: string): Promise<ApiToken[]> {
    return this.tokens.find({ where: { organizationId }, order: { createdAt: 'ASC' } });
  }

  async get(organizationId: string, id: string): Promise<ApiToken> {
    const token = await this.tokens.findOneBy({ id, organizationId });
    if (!token) throw notFound(`token ${id}`);
    return token;
  }

  /** Revokes a token of the organization; revoking twice keeps the first time. */
  async revoke(organizationId: string, id: string): Promise<ApiToken> {
    await this.sql.affected(REVOKE_TOKEN, [id, organizationId]);
    return this.get(organizationId, id);
  }

  /** For operators (CLI): revoke by id alone. */
  async revokeById(id: string): Promise<ApiToken> {
    const token = await this.tokens.findOneBy({ id });
    if (!token) throw notFound(`token ${id}`);
    return this.revoke(token.organizationId, id);
  }

  /** The condition keeps replicas that looked the token up at the same moment from writing twice. */
  private async noteUse(tokenId: string, organizationId: string): Promise<void> {
    await this.sql.affected(NOTE_TOKEN_USE, [tokenId, organizationId, LAST_USED_RESOLUTION_MS / 1000]);
  }

  private hash(secret: string): Buffer {
    return hashTokenSecret(secret, this.config.tokenPepper.reveal());
  }

  private async lookup(secretHash: Buffer): Promise<TokenPrincipal | null> {
    // On the primary: a token revoked a moment ago must not pass on a lagging replica.
    const row = await this.sql.first(TOKEN_BY_SECRET_HASH, [secretHash]);
    if (!row || row.revoked_at) return null;
    if (row.last_used_at === null || Date.now() - row.last_used_at.getTime() >= LAST_USED_RESOLUTION_MS) await this.noteUse(row.id, row.organization_id);
    return {
      kind: 'token',
      tokenId: row.id,
      organizationId: row.organization_id,
      environment: row.environment,
      tokenScopes: row.scopes,
      scopes: tokenRouteScopes(row.scopes),
      expiresAt: row.expires_at,
      rateLimitPerMinute: row.rate_limit_per_minute,
      burstPerMinute: row.burst_per_minute,
    };
  }

}

/** Puts an entry last in a bounded map, dropping the oldest entry when full. */
function remember<T>(cache: Map<string, T>, key: string, entry: T, capacity: number): void {
  cache.delete(key);
  if (cache.size >= capacity) {
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
  }
  cache.set(key, entry);
}

function invalidToken(message: string): AppError {
  return new AppError('invalid_token', message);
}

function unknownToken(): AppError {
  return invalidToken('The token is unknown or revoked.');
}
