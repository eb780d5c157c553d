import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_ROUTES, isRoute } from './routes';

const ROOT = join(__dirname, '..', '..', '..');
/** Written by `npm run build` from the API this build compiled (libs/sdk-node/generate-types.mjs). */
const DOCUMENT_PATH = join(ROOT, 'dist', 'openapi.json');
const TYPES_PATH = join(__dirname, 'generated', 'openapi.ts');
const GENERATOR = join(__dirname, '..', 'generate-types.mjs');

/**
 * Routes the typed client leaves out on purpose: those outside /v1 (probes, the web SDK's files,
 * RudderStack's settings) and the Segment-compatible ingestion routes, which exist for Segment's and
 * RudderStack's own SDKs; Node code sends events with Foresight.track() or `events.send`.
 */
const SEGMENT_COMPATIBLE = /^\/v1\/(batch|b|track|t|identify|i|page|p|screen|s|alias|a|group|g|projects\/\{writeKey\}\/settings)$/;
const leftOut = (path: string) => !path.startsWith('/v1/') || SEGMENT_COMPATIBLE.test(path);

function documentOfThisBuild(): { paths: Record<string, Record<string, unknown>> } {
  if (!existsSync(DOCUMENT_PATH)) throw new Error('dist/openapi.json is missing: run `npm run build` first');
  return JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8'));
}

function clientRoutes(tree: object = API_ROUTES): string[] {
  return Object.values(tree).flatMap((entry) => (isRoute(entry) ? [`${entry.method.toUpperCase()} ${entry.path}`] : clientRoutes(entry)));
}

describe('the typed client and the OpenAPI document', () => {
  it('covers every route of the OpenAPI document this build generated, and nothing else', () => {
    const documented = Object.entries(documentOfThisBuild().paths)
      .filter(([path]) => !leftOut(path))
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
    expect(documented.length).toBeGreaterThan(20);
    expect(clientRoutes().sort()).toEqual(documented.sort());
  });

  it('names each route once', () => {
    const routes = clientRoutes();
    expect(new Set(routes).size).toBe(routes.length);
  });

  /** The generator's --check of a types file against dist/openapi.json (openapi-typescript ships ES modules only: a child process). */
  const checkTypes = (file?: string) => spawnSync(process.execPath, [GENERATOR, '--check', ...(file ? [file] : [])], { encoding: 'utf8' });

  it('has its generated types up to date with that document (rebuild and commit the file when this fails)', () => {
    documentOfThisBuild();
    const check = checkTypes();
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  it('notices generated types that differ from the document by a single field', () => {
    const stale = join(mkdtempSync(join(tmpdir(), 'foresight-types-')), 'openapi.ts');
    writeFileSync(stale, readFileSync(TYPES_PATH, 'utf8').replace('featureImportance', 'featureWeights'));
    const check = checkTypes(stale);
    expect(check.status).toBe(1);
    expect(check.stderr).toContain('is stale');
  });
});
