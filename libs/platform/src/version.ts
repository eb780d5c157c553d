import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The package version, read from the repository's package.json (three levels above libs/platform/src, in src and dist alike). */
export const SERVICE_VERSION: string = (
  JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string }
).version;
