import { Controller, Get, Header, Inject, Param, Req } from '@nestjs/common';
import { ApiBasicAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { TokenPrincipal } from '@foresight/auth';
import { APP_CONFIG, type AppConfig } from '@foresight/platform';
import { CurrentToken, RequireScope, SegmentCompatible } from '../http/access.decorators';
import { basicUserName } from '../http/access.guard';

/**
 * Browser SDKs fetch the settings on every page load: the browser may keep them a few minutes. Only the
 * SDK's own cache, never a shared one: the answer follows the credential, and without PUBLIC_URL the
 * Host (or a trusted proxy's X-Forwarded-Host) the client used, which a private cache keys on already.
 */
const SETTINGS_CACHE_CONTROL = 'private, max-age=300';

/**
 * The settings Segment and RudderStack SDKs fetch before they send anything, answered so that they
 * send to this deployment and to nowhere else: no destinations, no device-mode integrations, Segment's
 * own telemetry sampled at 0. The key is the credential (ingest scope): an unknown or revoked one is
 * the guard's 401, which reveals nothing else.
 */
@ApiTags('events')
@ApiBasicAuth()
@RequireScope('ingest')
@SegmentCompatible()
@Controller()
export class SdkSettingsController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /**
   * Segment's `<cdnHost>/projects/<writeKey>/settings`. analytics-react-native sends nothing until
   * `integrations["Segment.io"]` is there; the mobile SDKs then post to `https://<apiHost>/b`, so
   * apiHost has no scheme (Segment's own is `api.segment.io/v1`).
   */
  @Get('projects/:writeKey/settings')
  @Header('cache-control', SETTINGS_CACHE_CONTROL)
  @ApiOperation({ summary: 'Segment SDK settings: where to send (this deployment), no other destination' })
  @ApiOkResponse({ schema: { type: 'object' } })
  segmentSettings(@Param('writeKey') writeKey: string, @Req() request: FastifyRequest): Record<string, unknown> {
    const base = publicBase(this.config.http.publicUrl, request);
    const apiHost = `${base.replace(/^https?:\/\//, '')}/v1`;
    return {
      integrations: {
        'Segment.io': {
          apiKey: writeKey,
          apiHost,
          // analytics.js prefixes apiHost with `https://` unless told otherwise (plugins/segmentio/index.js).
          ...(base.startsWith('http://') ? { protocol: 'http' } : {}),
          // analytics.js (analytics-next) then posts batches to `https://<apiHost>/b`, not one path per call type.
          deliveryStrategy: { strategy: 'batching' },
          unbundledIntegrations: [],
          addBundledMetadata: false,
          maybeBundledConfigIds: {},
        },
      },
      plan: { track: { __default: { enabled: true, integrations: {} } }, identify: { __default: { enabled: true } }, group: { __default: { enabled: true } } },
      edgeFunction: {},
      middlewareSettings: {},
      enabledMiddleware: {},
      // analytics-kotlin, -swift and -react-native report their own errors to Segment unless sampled out.
      metrics: { sampleRate: 0 },
      consentSettings: { allCategories: [], hasUnmappedDestinations: false },
      remotePlugins: [],
    };
  }

  /**
   * RudderStack's `<controlPlaneUrl>/sourceConfig` (Basic auth): the SDKs upload only once
   * `source.enabled` is true; rudder-sdk-kotlin (v2) also requires id, name, writeKey, workspaceId
   * and updatedAt (RudderServerConfigSource). The ids name the token, not the organization.
   * RudderStack's JS SDK v3 asks for `<configUrl>/sourceConfig/` (with the slash) when configUrl is a
   * bare origin (getSourceConfigURL): read as this route (withoutSourceConfigSlash).
   */
  @Get('sourceConfig')
  @Header('cache-control', SETTINGS_CACHE_CONTROL)
  @ApiOperation({ summary: 'Segment-compatible settings for RudderStack SDKs (sourceConfig): enabled, no destinations' })
  @ApiOkResponse({ schema: { type: 'object' } })
  rudderStackSourceConfig(@CurrentToken() principal: TokenPrincipal, @Req() request: FastifyRequest): Record<string, unknown> {
    return {
      source: {
        id: principal.tokenId,
        name: 'Foresight',
        writeKey: basicUserName(request.headers.authorization) ?? '',
        enabled: true,
        workspaceId: principal.tokenId,
        sourceDefinitionId: 'foresight',
        updatedAt: new Date(0).toISOString(),
        config: { statsCollection: { errors: { enabled: false }, metrics: { enabled: false } } },
        destinations: [],
      },
    };
  }
}

/**
 * PUBLIC_URL when set. Otherwise the scheme and Host the client used to reach us (X-Forwarded-* count
 * only from TRUSTED_PROXIES): whatever a client writes there is answered to that client alone, who
 * could as well configure that host in its SDK; nothing is cached or shown to anyone else.
 */
function publicBase(publicUrl: string | undefined, request: FastifyRequest): string {
  return publicUrl ?? `${request.protocol}://${request.host}`;
}
