import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const DIST_DIR = join(__dirname, '..', '..', '..', '..');
/** Where `npm run build` puts the web SDK (libs/sdk-web/build.mjs): dist/sdk, beside dist/apps. */
const SDK_BUILD_DIR = join(DIST_DIR, 'sdk');
/** Where it packs the Node and React Native SDKs as npm tarballs (libs/sdk-core/build-support.mjs). */
const PACKAGES_BUILD_DIR = join(DIST_DIR, 'packages');

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
  return loadAsset(join(SDK_BUILD_DIR, file), contentType, cacheControl, headersFor);
}

/** A package the deployment serves for `npm install <url>`: its npm name, version and tarball. */
export interface SdkPackage {
  name: string;
  version: string;
  /** `npm pack`'s file name, e.g. foresight-node-0.1.0.tgz, served at /sdk/<file>. */
  file: string;
  tarball: SdkAsset;
}

/** The SDK packages the build packed, by tarball file name (none before `npm run build`). */
export function loadSdkPackages(cacheControl: string, headersFor: (file: string) => Record<string, string>): Map<string, SdkPackage> {
  const packages = new Map<string, SdkPackage>();
  for (const folder of ['node', 'react-native']) {
    const manifestPath = join(PACKAGES_BUILD_DIR, folder, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const { name, version } = JSON.parse(readFileSync(manifestPath, 'utf8')) as { name: string; version: string };
    const file = `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
    const tarball = existsSync(join(PACKAGES_BUILD_DIR, file)) ? loadAsset(join(PACKAGES_BUILD_DIR, file), 'application/gzip', cacheControl, () => headersFor(file)) : undefined;
    if (tarball) packages.set(file, { name, version, file, tarball });
  }
  return packages;
}

function loadAsset(path: string, contentType: string, cacheControl: string, headersFor: (text: string) => Record<string, string>): SdkAsset | undefined {
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
