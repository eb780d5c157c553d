import { Controller, Get, Headers, Inject, Param, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { LOGGER, type Logger, notFound } from '@foresight/platform';
import { Public } from '../http/access.decorators';
import { inlineBlockHashes, pageHeaders } from '../http/page-headers';
import { openApiSchema } from '../http/zod';
import { isFresh, loadSdkAsset, loadSdkPackages, type SdkAsset, type SdkPackage } from './sdk-asset';

/** The bundle URL has no version in it, so caches revalidate (cheaply, by ETag) every few minutes. */
const SCRIPT_CACHE_CONTROL = 'public, max-age=300';
/**
 * A tarball's URL names its version, yet a rebuild of one version (a development build) may change
 * its bytes: caches keep it a day and then revalidate by ETag, never serving one forever.
 */
const PACKAGE_CACHE_CONTROL = 'public, max-age=86400';

const packagesSchema = z.object({
  packages: z.array(
    z.object({
      name: z.string().describe('the npm package name, e.g. @foresight/node'),
      version: z.string(),
      file: z.string().describe('the tarball, e.g. foresight-node-0.1.0.tgz'),
      path: z.string().describe('where this deployment serves it, e.g. /sdk/foresight-node-0.1.0.tgz: `npm install https://<host><path>`'),
    }),
  ),
});

/**
 * The example page runs the bundle and its own inline script and style, allowed by their hashes, and
 * sends to this Foresight or to the one its `#apiHost=` names, wherever that is.
 */
function examplePageHeaders(html: string): Record<string, string> {
  return pageHeaders(
    [
      "default-src 'none'",
      `script-src 'self' ${inlineBlockHashes(html, 'script').join(' ')}`,
      `style-src ${inlineBlockHashes(html, 'style').join(' ')}`,
      "connect-src 'self' https: http:",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
  );
}

/**
 * The web SDK and its example page, outside /v1 and without a token: pages load them with a plain
 * script tag, and they hold no organization data. Read once at start-up.
 */
@ApiTags('sdk')
@Controller('sdk')
@Public()
export class SdkController {
  private readonly script: SdkAsset | undefined;
  private readonly example: SdkAsset | undefined;
  private readonly packages: Map<string, SdkPackage>;

  constructor(@Inject(LOGGER) logger: Logger) {
    this.script = loadSdkAsset('foresight.js', 'application/javascript; charset=utf-8', SCRIPT_CACHE_CONTROL, () => ({ 'x-content-type-options': 'nosniff' }));
    this.example = loadSdkAsset('example.html', 'text/html; charset=utf-8', 'no-cache', examplePageHeaders);
    this.packages = loadSdkPackages(PACKAGE_CACHE_CONTROL, (file) => ({ 'x-content-type-options': 'nosniff', 'content-disposition': `attachment; filename="${file}"` }));
    if (!this.script || !this.example) logger.warn('The web SDK is not built (dist/sdk): /sdk routes answer 404 until `npm run build` runs.');
    if (this.packages.size === 0) logger.warn('The SDK packages are not packed (dist/packages): /sdk/packages lists none until `npm run build` runs.');
  }

  @Get('packages')
  @ApiOperation({ summary: 'The SDK packages this deployment serves as npm tarballs, for `npm install https://<host>/sdk/<file>` without a registry' })
  @ApiOkResponse({ schema: openApiSchema(packagesSchema) })
  listPackages(): z.infer<typeof packagesSchema> {
    return { packages: [...this.packages.values()].map(({ name, version, file }) => ({ name, version, file, path: `/sdk/${file}` })) };
  }

  @Get(':file')
  @ApiOperation({ summary: 'An SDK package as an npm tarball (application/gzip), e.g. foresight-node-0.1.0.tgz; /sdk/packages lists them' })
  servePackage(@Param('file') file: string, @Headers('if-none-match') ifNoneMatch: string | undefined, @Res() reply: FastifyReply): void {
    send(this.packages.get(file)?.tarball, 'that SDK package', ifNoneMatch, reply);
  }

  @Get('foresight.js')
  @ApiOperation({ summary: 'The web SDK, one minified file exposing the global Foresight' })
  serveScript(@Headers('if-none-match') ifNoneMatch: string | undefined, @Res() reply: FastifyReply): void {
    send(this.script, 'the web SDK bundle', ifNoneMatch, reply);
  }

  @Get(['example', 'example/:view'])
  @ApiOperation({ summary: 'Example page using the SDK; give it a token as #token=pat_… (the fragment never reaches a server)' })
  serveExample(@Headers('if-none-match') ifNoneMatch: string | undefined, @Res() reply: FastifyReply): void {
    send(this.example, 'the SDK example page', ifNoneMatch, reply);
  }
}

function send(asset: SdkAsset | undefined, what: string, ifNoneMatch: string | undefined, reply: FastifyReply): void {
  if (!asset) throw notFound(what);
  void reply.headers({ ...asset.headers, etag: asset.etag, 'cache-control': asset.cacheControl });
  if (isFresh(asset, ifNoneMatch)) {
    void reply.status(304).send();
    return;
  }
  void reply.type(asset.contentType).send(asset.body);
}
