import { createParamDecorator, type ExecutionContext, Injectable, type PipeTransform } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { type CallerUser, UserIdsService } from '@foresight/events';

/** Longest user id a query may carry (the events' own limit). */
const MAX_USER_ID_LENGTH = 255;

declare module 'fastify' {
  interface FastifyRequest {
    /** The user the route's query names, resolved by QueryUser; the audit log names it from here. */
    callerUser?: CallerUser;
  }
}

interface UserInQuery {
  request: FastifyRequest;
  organizationId: string;
  rawId: unknown;
}

/**
 * Resolves the caller's user id once, at the edge: services below take its StoredUserId only.
 * A missing or malformed id resolves to undefined; the route's query schema reports it.
 */
@Injectable()
export class CallerUserPipe implements PipeTransform<UserInQuery, Promise<CallerUser | undefined>> {
  constructor(private readonly userIds: UserIdsService) {}

  async transform({ request, organizationId, rawId }: UserInQuery): Promise<CallerUser | undefined> {
    if (typeof rawId !== 'string' || rawId.length === 0 || rawId.length > MAX_USER_ID_LENGTH) return undefined;
    request.callerUser = await this.userIds.resolve(organizationId, rawId);
    return request.callerUser;
  }
}

const userInQuery = createParamDecorator((field: string, context: ExecutionContext): UserInQuery => {
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  if (!request.principal) throw new Error('QueryUser used on a route without authentication');
  return { request, organizationId: request.principal.organizationId, rawId: (request.query as Record<string, unknown>)[field] };
});

/** The user named by the query parameter `field`, as a CallerUser (undefined when the query names none). */
export const QueryUser = (field = 'userId'): ParameterDecorator => userInQuery(field, CallerUserPipe);
