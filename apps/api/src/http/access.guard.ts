import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type BucketDecision, DashboardSessionsService, type Principal, RateLimitedError, RateLimiterService, type RouteScope, TokensService } from '@foresight/auth';
import { APP_CONFIG, type AppConfig, AppError } from '@foresight/platform';
import { PUBLIC_ROUTE, REQUIRED_SCOPE, SEGMENT_AUTH } from './access.decorators';
import { refuseNulInBody } from './json-body';
import { SessionCookies } from './session-cookie';
import { refuseUnreadableUrl } from './url-strings';

/**
 * A person signed in through single sign-on is authenticated by the session cookie instead of a
 * token, on the dashboard's own calls only (SessionCookies.sessionSecret, with its CSRF token), never on
 * the Segment-compatible routes, and never when an Authorization header is sent; then the same rate
 * limit and the same scope check apply, with the scopes of the person's role.
 *
 * Token → rate limit → scope → unreadable URL strings (NUL, percent-encoding that is not UTF-8) or NUL
 * in the body, in that order, for every route not marked public.
 * A request whose token this process has not verified yet (none, malformed, made up, revoked) is
 * first checked against its client address's bucket, which failed authentications spend, so an
 * unauthenticated flood is refused before it costs an HMAC and a Postgres lookup each, while a good
 * token's first burst passes; a verified token costs one Map lookup more, nothing else.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly cookies: SessionCookies;

  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: TokensService,
    private readonly sessions: DashboardSessionsService,
    private readonly rateLimiter: RateLimiterService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.cookies = new SessionCookies(config.dashboard);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) {
      refuseUnreadableUrl(request);
      refuseNulInBody(request);
      return true;
    }
    const reply = http.getResponse<FastifyReply>();

    const segment = this.reflector.getAllAndOverride<boolean>(SEGMENT_AUTH, targets) === true;
    const session = segment || request.headers.authorization !== undefined ? undefined : this.cookies.sessionSecret(request);
    const secret = (segment ? segmentWriteKey(request) : undefined) ?? presentedSecret(request.headers.authorization, () => segment);
    if (session !== undefined || typeof secret !== 'string' || !this.tokens.wasVerified(secret)) {
      enforce(reply, this.rateLimiter.unauthenticatedPerMinute, await this.rateLimiter.checkUnauthenticated(request.ip));
    }
    const principal = await this.authenticate(request.ip, () => (session ? this.personOf(request, session) : this.tokenOf(secret)));
    enforce(reply, principal.rateLimitPerMinute, await this.rateLimiter.take(principal));

    const scope = this.reflector.getAllAndOverride<RouteScope | undefined>(REQUIRED_SCOPE, targets);
    if (scope && !principal.scopes.includes(scope)) throw insufficientScope(scope);
    // After authentication (an unauthenticated caller learns nothing but 401), before any handler queries.
    refuseUnreadableUrl(request);
    refuseNulInBody(request);
    request.principal = principal;
    return true;
  }

  /** Every failed authentication spends its client address's budget, which the check above reads. */
  private async authenticate(clientAddress: string, principal: () => Promise<Principal>): Promise<Principal> {
    try {
      return await principal();
    } catch (error) {
      if (error instanceof AppError && error.code === 'invalid_token') await this.rateLimiter.takeUnauthenticated(clientAddress);
      throw error;
    }
  }

  private async tokenOf(secret: string | AppError): Promise<Principal> {
    if (typeof secret !== 'string') throw secret;
    return this.tokens.authenticate(secret);
  }

  /** The CSRF token and the origin are checked before the session is looked up. */
  private async personOf(request: FastifyRequest, session: { secret: string; csrf: string }): Promise<Principal> {
    if (!this.cookies.sameOrigin(request)) {
      throw new AppError('invalid_token', "The session cookie is accepted on the dashboard's own calls only, from its own origin.");
    }
    if (!this.sessions.csrfTokenMatches(session.secret, session.csrf)) throw new AppError('invalid_token', 'The CSRF token does not match the session.');
    return this.sessions.authenticate(session.secret);
  }
}

/** `manage` is no token scope of its own: tokens hold it with `admin`, people with the editor or admin role. */
function insufficientScope(scope: RouteScope): AppError {
  const needed = scope === 'manage' ? 'a token with the "admin" scope, or the editor or admin role' : `a token with the "${scope}" scope${scope === 'ingest' ? '' : ', or a role that holds it'}`;
  return new AppError('insufficient_scope', `This route needs ${needed}.`);
}

/** Sets the RateLimit-* headers of the bucket that decided, and refuses when it is empty. */
function enforce(reply: FastifyReply, limitPerMinute: number, decision: BucketDecision): void {
  void reply.headers({
    'ratelimit-limit': String(limitPerMinute),
    'ratelimit-remaining': String(decision.remaining),
    'ratelimit-reset': String(Math.ceil(decision.resetMs / 1000)),
  });
  if (!decision.allowed) throw new RateLimitedError(Math.max(1, Math.ceil(decision.retryAfterMs / 1000)));
}

/**
 * The write key Segment's clients send outside the Authorization header, on the Segment-compatible
 * routes only: in the settings URL (`/projects/{writeKey}/settings`, the key the SDK was configured
 * with, so it decides even when a header is sent), or, when no header is sent, as the body's
 * `writeKey` (Segment's mobile SDKs send no header).
 */
function segmentWriteKey(request: FastifyRequest): string | undefined {
  const fromUrl = (request.params as Record<string, unknown> | undefined)?.writeKey;
  if (typeof fromUrl === 'string') return fromUrl;
  if (request.headers.authorization !== undefined) return undefined;
  const body = request.body as Record<string, unknown> | null | undefined;
  const fromBody = typeof body === 'object' && body !== null && !Array.isArray(body) ? body.writeKey : undefined;
  return typeof fromBody === 'string' && fromBody !== '' ? fromBody : undefined;
}

/**
 * `Bearer <token>` everywhere; `Basic base64(<token>:)`, as Segment and RudderStack clients send their
 * write key, on the Segment-compatible routes only. Anything else is the invalid_token error to answer.
 */
function presentedSecret(header: string | undefined, acceptsBasic: () => boolean): string | AppError {
  if (!header) return new AppError('invalid_token', 'The Authorization header is missing; send "Authorization: Bearer <token>".');
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (bearer) return bearer[1];
  const basic = basicUserName(header);
  if (basic !== undefined && acceptsBasic()) return basic;
  return new AppError('invalid_token', 'The Authorization header must be "Bearer <token>".');
}

/** The user name of `Basic base64(<user>:<password>)`, where Segment and RudderStack clients put their write key. */
export function basicUserName(header: string | undefined): string | undefined {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  return basic ? Buffer.from(basic[1], 'base64').toString('utf8').replace(/:.*$/s, '') : undefined;
}
