import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { LOGGER, type Logger, notFound } from '@foresight/platform';
import { Public } from '../http/access.decorators';
import { inlineBlockHashes, pageHeaders } from '../http/page-headers';
import { isFresh, loadSdkAsset, type SdkAsset } from './sdk-asset';

/** The bundle URL has no version in it, so caches revalidate (cheaply, by ETag) every few minutes. */
const SCRIPT_CACHE_CONTROL = 'public, max-age=300';

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

  constructor(@Inject(LOGGER) logger: Logger) {
    this.script = loadSdkAsset('foresight.js', 'application/javascript; charset=utf-8', SCRIPT_CACHE_CONTROL, () => ({ 'x-content-type-options': 'nosniff' }));
    this.example = loadSdkAsset('example.html', 'text/html; charset=utf-8', 'no-cache', examplePageHeaders);
    if (!this.script || !this.example) logger.warn('The web SDK is not built (dist/sdk): /sdk routes answer 404 until `npm run build` runs.');
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
