import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RateLimitedError, RateLimiterService, TokensService, type Scope } from '@foresight/auth';
import { AppError } from '@foresight/platform';
import { PUBLIC_ROUTE, REQUIRED_SCOPE } from './access.decorators';

/** Token → rate limit → scope, in that order, for every route not marked public. */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: TokensService,
    private readonly rateLimiter: RateLimiterService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();

    const principal = await this.tokens.authenticate(presentedSecret(request.headers.authorization));
    const decision = await this.rateLimiter.take(principal);
    void reply.headers({
      'ratelimit-limit': String(principal.rateLimitPerMinute),
      'ratelimit-remaining': String(decision.remaining),
      'ratelimit-reset': String(Math.ceil(decision.resetMs / 1000)),
    });
    if (!decision.allowed) throw new RateLimitedError(Math.max(1, Math.ceil(decision.retryAfterMs / 1000)));

    const scope = this.reflector.getAllAndOverride<Scope | undefined>(REQUIRED_SCOPE, targets);
    if (scope && !principal.scopes.includes(scope)) {
      throw new AppError('insufficient_scope', `This route needs a token with the "${scope}" scope.`);
    }
    request.principal = principal;
    return true;
  }
}

/** `Bearer <token>`, or `Basic base64(<token>:)` as Segment and RudderStack clients send their write key. */
function presentedSecret(header: string | undefined): string {
  if (!header) throw new AppError('invalid_token', 'The Authorization header is missing; send "Authorization: Bearer <token>".');
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (bearer) return bearer[1];
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (basic) return Buffer.from(basic[1], 'base64').toString('utf8').replace(/:.*$/s, '');
  throw new AppError('invalid_token', 'The Authorization header must be "Bearer <token>".');
}
