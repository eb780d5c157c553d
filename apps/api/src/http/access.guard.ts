import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type BucketDecision, type Principal, RateLimitedError, RateLimiterService, type Scope, TokensService } from '@foresight/auth';
import { AppError } from '@foresight/platform';
import { PUBLIC_ROUTE, REQUIRED_SCOPE, SEGMENT_AUTH } from './access.decorators';
import { refuseNulInBody } from './json-body';
import { refuseUnreadableUrl } from './url-strings';

/**
 * Token → rate limit → scope → unreadable URL strings (NUL, percent-encoding that is not UTF-8) or NUL
 * in the body, in that order, for every route not marked public.
 * A request whose token this process has not verified yet (none, malformed, made up, revoked) is
 * first checked against its client address's bucket, which failed authentications spend, so an
 * unauthenticated flood is refused before it costs an HMAC and a Postgres lookup each, while a good
 * token's first burst passes; a verified token costs one Map lookup more, nothing else.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: TokensService,
    private readonly rateLimiter: RateLimiterService,
  ) {}

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
    const secret = (segment ? segmentWriteKey(request) : undefined) ?? presentedSecret(request.headers.authorization, () => segment);
    if (typeof secret !== 'string' || !this.tokens.wasVerified(secret)) {
      enforce(reply, this.rateLimiter.unauthenticatedPerMinute, await this.rateLimiter.checkUnauthenticated(request.ip));
    }
    const principal = await this.authenticate(secret, request.ip);
    enforce(reply, principal.rateLimitPerMinute, await this.rateLimiter.take(principal));

    const scope = this.reflector.getAllAndOverride<Scope | undefined>(REQUIRED_SCOPE, targets);
    if (scope && !principal.scopes.includes(scope)) {
      throw new AppError('insufficient_scope', `This route needs a token with the "${scope}" scope.`);
    }
    // After authentication (an unauthenticated caller learns nothing but 401), before any handler queries.
    refuseUnreadableUrl(request);
    refuseNulInBody(request);
    request.principal = principal;
    return true;
  }

  /** Every failed authentication spends its client address's budget, which the check above reads. */
  private async authenticate(secret: string | AppError, clientAddress: string): Promise<Principal> {
    try {
      if (typeof secret !== 'string') throw secret;
      return await this.tokens.authenticate(secret);
    } catch (error) {
      if (error instanceof AppError && error.code === 'invalid_token') await this.rateLimiter.takeUnauthenticated(clientAddress);
      throw error;
    }
  }
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
