import { applyDecorators, type CallHandler, type ExecutionContext, Injectable, type NestInterceptor, SetMetadata, UseInterceptors } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { mergeMap, type Observable } from 'rxjs';
import { type AuditedAction, AuditLogService } from '@foresight/auth';
import { UserIdsService } from '@foresight/events';

const AUDITED = 'foresight:audited';

/** Where an audited route finds its target: a path parameter, a field of its result, or the user its query names (QueryUser). */
export type AuditTarget = { param: string } | { resultField: string } | 'queryUser';

interface AuditSpec {
  action: AuditedAction;
  target: AuditTarget;
}

/**
 * Records the route's successful calls in the audit log (the token or person who acted, action, target, time). The
 * interceptor is attached to audited routes only: every other request skips its rxjs pipeline.
 */
export const Audited = (action: AuditedAction, target: AuditTarget): MethodDecorator =>
  applyDecorators(SetMetadata(AUDITED, { action, target } satisfies AuditSpec), UseInterceptors(AuditInterceptor));

/** Writes the audit entry before the response leaves, so an answered admin action is always on record. */
@Injectable()
export class AuditInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly audit: AuditLogService,
    private readonly userIds: UserIdsService,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const spec = this.reflector.get<AuditSpec | undefined>(AUDITED, context.getHandler());
    if (!spec) throw new Error(`AuditInterceptor on ${context.getHandler().name} without @Audited`);
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    return next.handle().pipe(
      mergeMap(async (result: unknown) => {
        const principal = request.principal;
        if (principal) {
          const target = this.target(spec.target, request, principal.organizationId, result);
          await this.audit.record({
            organizationId: principal.organizationId,
            actorTokenId: principal.kind === 'token' ? principal.tokenId : null,
            actorPerson: principal.kind === 'person' ? principal.person : null,
            action: spec.action,
            target,
          });
        }
        return result;
      }),
    );
  }

  private target(target: AuditTarget, request: FastifyRequest, organizationId: string, result: unknown): string | null {
    if (target === 'queryUser') {
      // A user is named by its keyed hash, like erasure records: the audit log holds no user id.
      return request.callerUser ? `user:${this.userIds.userHash(organizationId, request.callerUser.stored)}` : null;
    }
    if ('param' in target) return field(request.params, target.param);
    return field(result, target.resultField);
  }
}

function field(source: unknown, name: string): string | null {
  const value = typeof source === 'object' && source !== null ? (source as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : null;
}
