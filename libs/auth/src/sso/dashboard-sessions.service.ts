import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, AppError, Encryptor, LOGGER, type Logger, newId, SqlExecutor } from '@foresight/platform';
import type { Person, PersonPrincipal } from '../tokens/principal';
import { ROLE_SCOPES } from '../tokens/scopes';
import { hashTokenSecret } from '../tokens/token-secret';
import {
  CLAIM_DASHBOARD_SESSION_REFRESH,
  DASHBOARD_SESSION_BY_SECRET_HASH,
  type DashboardSessionRow,
  DELETE_DASHBOARD_SESSION,
  DELETE_ENDED_DASHBOARD_SESSIONS,
  INSERT_DASHBOARD_SESSION,
  REFRESH_DASHBOARD_SESSION,
  TOUCH_DASHBOARD_SESSION,
} from './dashboard-sessions.sql';
import { OpenIdProviderClient, type ProviderAnswer, providerRefused } from './openid-provider.client';
import { groupsOf } from './role-grants';
import { type GrantedRole, SsoGrantsService } from './sso-grants.service';

/** The provider's tokens a session keeps, encrypted at rest: the refresh token, and the ID token for RP-initiated logout. */
interface ProviderTokens {
  idToken: string;
  refreshToken: string | null;
}

/** `last_seen_at` is written at most this often, or a tenth of the idle timeout when that is shorter (else a busy session would idle out). */
const TOUCH_RESOLUTION_SECONDS = 10;

/**
 * Server-side sessions of people signed in through single sign-on. The browser holds only a random
 * secret; the table holds its keyed hash (as for tokens), the person, their role, and the provider's
 * tokens. A session ends when idle too long, at its absolute lifetime, at sign-out, or when the
 * provider, asked again every OIDC_REFRESH_INTERVAL, refuses the refresh, or when the person's groups
 * (as the provider then tells them) no longer hold a grant in the organization (grants are re-read too).
 */
@Injectable()
export class DashboardSessionsService {
  constructor(
    private readonly sql: SqlExecutor,
    private readonly encryptor: Encryptor,
    private readonly provider: OpenIdProviderClient,
    private readonly grants: SsoGrantsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** The organization and role the groups in the provider's answer are granted (SsoGrantsService.grantFor), or null. */
  async grantOf(answer: ProviderAnswer): Promise<GrantedRole | null> {
    return this.grants.grantFor(this.groupsOf(answer));
  }

  /** A new session (a new secret at every sign-in: nothing a browser held before names it). */
  async create(grant: GrantedRole, answer: ProviderAnswer): Promise<string> {
    const secret = `fss_${randomBytes(32).toString('base64url')}`;
    const id = newId('ses');
    const person = personOf(answer);
    await this.sql.affected(DELETE_ENDED_DASHBOARD_SESSIONS, [grant.organizationId, this.config.dashboard.sessionIdleTimeoutMs]);
    await this.sql.affected(INSERT_DASHBOARD_SESSION, [
      grant.organizationId,
      id,
      this.hash(secret),
      person.subject,
      person.email,
      person.name,
      grant.role,
      this.seal(id, { idToken: answer.idToken, refreshToken: answer.refreshToken }),
      this.config.dashboard.sessionMaxAgeMs,
    ]);
    return secret;
  }

  /** The person a session secret names, or `invalid_token` when there is no such live session. */
  async authenticate(secret: string): Promise<PersonPrincipal> {
    let row = await this.sql.first(DASHBOARD_SESSION_BY_SECRET_HASH, [this.hash(secret)]);
    if (!row) throw sessionEnded('The session is unknown or has ended; sign in again.');
    const now = Date.now();
    if (row.expires_at.getTime() <= now || row.last_seen_at.getTime() <= now - this.config.dashboard.sessionIdleTimeoutMs) {
      await this.sql.affected(DELETE_DASHBOARD_SESSION, [row.organization_id, row.id]);
      throw sessionEnded('The session has expired; sign in again.');
    }
    const refreshIntervalMs = this.config.dashboard.sso?.refreshIntervalMs;
    if (refreshIntervalMs !== undefined && row.refreshed_at.getTime() <= now - refreshIntervalMs) row = await this.refresh(row, refreshIntervalMs);
    const touchResolutionSeconds = Math.min(TOUCH_RESOLUTION_SECONDS, this.config.dashboard.sessionIdleTimeoutMs / 10_000);
    await this.sql.affected(TOUCH_DASHBOARD_SESSION, [row.organization_id, row.id, touchResolutionSeconds]);
    return {
      kind: 'person',
      sessionId: row.id,
      organizationId: row.organization_id,
      person: { subject: row.subject, email: row.email, name: row.name },
      role: row.role,
      scopes: ROLE_SCOPES[row.role],
      rateLimitPerMinute: row.rate_limit_per_minute,
      burstPerMinute: row.burst_per_minute,
    };
  }

  /** Ends the session a browser held before signing in again (rotation: one browser, one live session). */
  async replace(previousSecret: string): Promise<void> {
    const previous = await this.sql.first(DASHBOARD_SESSION_BY_SECRET_HASH, [this.hash(previousSecret)]);
    if (previous) await this.sql.affected(DELETE_DASHBOARD_SESSION, [previous.organization_id, previous.id]);
  }

  /** Ends the session; answers the ID token the provider's end-session endpoint wants as a hint. */
  async end(principal: PersonPrincipal): Promise<string | null> {
    const ended = await this.sql.first(DELETE_DASHBOARD_SESSION, [principal.organizationId, principal.sessionId]);
    return ended ? this.unseal(principal.sessionId, ended.provider_tokens).idToken : null;
  }

  /** The session's CSRF token: derived from its secret, so nothing more is stored, and useless without the cookie. */
  csrfToken(secret: string): string {
    return createHmac('sha256', this.config.tokenPepper.reveal()).update(`csrf:${secret}`).digest('base64url');
  }

  csrfTokenMatches(secret: string, presented: string): boolean {
    const expected = Buffer.from(this.csrfToken(secret));
    const given = Buffer.from(presented);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /**
   * Asks the provider again, once per interval (the request that claims it; concurrent ones go on as
   * before). A refusal, or an answer that no longer grants a role in this organization, ends the
   * session; a changed role applies at once. An unreachable provider is asked again next interval.
   */
  private async refresh(row: DashboardSessionRow, intervalMs: number): Promise<DashboardSessionRow> {
    const claimed = await this.sql.first(CLAIM_DASHBOARD_SESSION_REFRESH, [row.organization_id, row.id, intervalMs]);
    if (!claimed) return row;
    const tokens = this.unseal(row.id, row.provider_tokens);
    if (tokens.refreshToken === null) return this.endSession(row, 'The session must be renewed; sign in again.');
    let answer: ProviderAnswer;
    try {
      answer = await this.provider.refresh(tokens.refreshToken, row.subject, tokens.idToken);
    } catch (error) {
      if (providerRefused(error)) return this.endSession(row, 'Your identity provider no longer grants this session; sign in again.');
      this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'the OpenID provider could not be reached to refresh a dashboard session; it is asked again next interval');
      return row;
    }
    const role = await this.grants.roleIn(row.organization_id, this.groupsOf(answer));
    if (role === null) return this.endSession(row, 'Your groups no longer grant access to this organization.');
    const person = personOf(answer);
    const sealed = this.seal(row.id, { idToken: answer.idToken, refreshToken: answer.refreshToken });
    await this.sql.affected(REFRESH_DASHBOARD_SESSION, [row.organization_id, row.id, role, person.email, person.name, sealed]);
    return { ...row, role, email: person.email, name: person.name, provider_tokens: sealed };
  }

  private groupsOf(answer: ProviderAnswer): string[] {
    const sso = this.config.dashboard.sso;
    return sso ? groupsOf(answer.claims, sso.groupsClaim) : [];
  }

  private async endSession(row: DashboardSessionRow, message: string): Promise<never> {
    await this.sql.affected(DELETE_DASHBOARD_SESSION, [row.organization_id, row.id]);
    throw sessionEnded(message);
  }

  private hash(secret: string): Buffer {
    return hashTokenSecret(secret, this.config.tokenPepper.reveal());
  }

  private seal(sessionId: string, tokens: ProviderTokens): string {
    return this.encryptor.encrypt(JSON.stringify(tokens), `dashboard-session:${sessionId}`);
  }

  private unseal(sessionId: string, sealed: string): ProviderTokens {
    return JSON.parse(this.encryptor.decryptText(sealed, `dashboard-session:${sessionId}`)) as ProviderTokens;
  }
}

function personOf(answer: ProviderAnswer): Person {
  const text = (name: string) => {
    const value = answer.claims[name];
    return typeof value === 'string' ? value : null;
  };
  return { subject: String(answer.claims.sub), email: text('email'), name: text('name') };
}

function sessionEnded(message: string): AppError {
  return new AppError('invalid_token', message);
}
