import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Principal, RouteScope, TokenPrincipal } from '@foresight/auth';
import { AppError } from '@foresight/platform';

export const PUBLIC_ROUTE = 'foresight:public';
export const REQUIRED_SCOPE = 'foresight:scope';
export const SEGMENT_AUTH = 'foresight:segment-auth';

/** Outside the token check: probes only. */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(PUBLIC_ROUTE, true);

/**
 * Segment-compatible routes: Segment and RudderStack clients send their write key as Basic auth
 * (`base64(<token>:)`). Every other route takes Bearer only.
 */
export const SegmentCompatible = (): MethodDecorator & ClassDecorator => SetMetadata(SEGMENT_AUTH, true);

/** The caller must hold this scope: a token's own (`admin` holds `manage`), or a person's role's. */
export const RequireScope = (scope: RouteScope): MethodDecorator & ClassDecorator => SetMetadata(REQUIRED_SCOPE, scope);

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

/** The authenticated caller; every organization id a handler uses comes from here. */
export const CurrentPrincipal = createParamDecorator((_: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<FastifyRequest>().principal;
  if (!principal) throw new Error('CurrentPrincipal used on a route without authentication');
  return principal;
});

/** The calling token, on routes that describe or name it; a person signed in through SSO has none. */
export const CurrentToken = createParamDecorator((_: unknown, context: ExecutionContext): TokenPrincipal => {
  const principal = context.switchToHttp().getRequest<FastifyRequest>().principal;
  if (!principal) throw new Error('CurrentToken used on a route without authentication');
  if (principal.kind !== 'token') throw new AppError('insufficient_scope', 'This route needs an API token; a person signed in through single sign-on has none.');
  return principal;
});
