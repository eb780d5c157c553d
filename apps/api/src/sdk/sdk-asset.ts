import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where `npm run build` puts the web SDK (libs/sdk-web/build.mjs): dist/sdk, beside dist/apps. */
const SDK_BUILD_DIR = join(__dirname, '..', '..', '..', '..', 'sdk');

export interface SdkAsset {
  readonly body: Buffer;
  readonly contentType: string;
  readonly etag: string;
  readonly cacheControl: string;
  /** Sent with it besides its type, ETag and Cache-Control. */
  readonly headers: Record<string, string>;
}

/** A built SDK file, read once; undefined when the build did not produce it. Its headers may depend on its text (a page's CSP hashes its inline script). */
export function loadSdkAsset(file: string, contentType: string, cacheControl: string, headersFor: (text: string) => Record<string, string>): SdkAsset | undefined {
  const path = join(SDK_BUILD_DIR, file);
  if (!existsSync(path)) return undefined;
  const body = readFileSync(path);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { body, contentType, etag, cacheControl, headers: headersFor(body.toString('utf8')) };
}

/** If-None-Match lists the ETags the client holds (or `*`); weak and strong forms compare equal for GET. */
export function isFresh(asset: SdkAsset, ifNoneMatch: string | undefined): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || tag.trim().replace(/^W\//, '') === asset.etag);
}
