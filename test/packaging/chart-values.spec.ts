import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CHART_DIR,
  chartMetadata,
  describeValue,
  exampleValues,
  readChartFile,
  REPOSITORY,
  schemaErrors,
  valueLeaves,
  type Values,
  valuesReference,
} from './chart';
import { EVERY_OPTION, REQUIRED_INLINE } from './chart-scenarios';

/** values.yaml, the examples and values.schema.json as helm validates them, and the chart README. */

const EXAMPLES = readdirSync(join(CHART_DIR, 'examples')).sort();
/** Where each error helm reports points, e.g. "/postgres/url". */
const errorPaths = (...overrides: Values[]) => [...new Set(schemaErrors(...overrides).map((e) => e.path))].sort();

describe('chart values', () => {
  it('are incomplete on their own: the image, PostgreSQL, Redis and the two secrets must be given', () => {
    expect(errorPaths()).toEqual(['/image/repository', '/postgres/url', '/redis/url', '/secrets/encryptionKey', '/secrets/tokenPepper']);
  });

  it('include a minimal and a high-availability example', () => {
    expect(EXAMPLES).toEqual(['high-availability.yaml', 'minimal.yaml']);
  });

  it.each(EXAMPLES)('accept examples/%s on top of values.yaml', (example) => {
    expect(schemaErrors(exampleValues(example))).toEqual([]);
  });

  it('accept PostgreSQL, Redis and the secrets given inline, and every optional setting', () => {
    expect(schemaErrors(REQUIRED_INLINE)).toEqual([]);
    expect(schemaErrors(EVERY_OPTION)).toEqual([]);
  });

  it('reject a release without PostgreSQL or without Redis', () => {
    const { postgres, redis, ...rest } = REQUIRED_INLINE;
    expect(errorPaths(rest, { redis })).toEqual(['/postgres/url']);
    expect(errorPaths(rest, { postgres })).toEqual(['/redis/url']);
    // Deleting the whole map (`--set postgres=null`) is caught too.
    expect(errorPaths(REQUIRED_INLINE, { postgres: null })).toEqual(['/postgres']);
  });

  it('reject inline connection values next to an existingSecret, which would silently win', () => {
    expect(errorPaths(REQUIRED_INLINE, { existingSecret: 'foresight-env' })).toEqual([
      '/postgres/url',
      '/redis/url',
      '/secrets/encryptionKey',
      '/secrets/tokenPepper',
    ]);
    // A read replica's URL goes into the existingSecret too (DATABASE_READ_URL), not inline beside it.
    const secretOnly = { image: REQUIRED_INLINE.image, existingSecret: 'foresight-env' };
    expect(errorPaths(secretOnly)).toEqual([]);
    expect(errorPaths(secretOnly, { postgres: { readUrl: 'postgres://replica/f' } })).toEqual(['/postgres/readUrl']);
  });

  it('reject misspelt keys, an Ingress without a host and ports the unprivileged processes cannot bind', () => {
    expect(errorPaths(REQUIRED_INLINE, { api: { replica: 3 } })).toEqual(['/api']);
    expect(errorPaths(REQUIRED_INLINE, { ingress: { enabled: true } })).toEqual(['/ingress/host']);
    expect(errorPaths(REQUIRED_INLINE, { ports: { http: 80 } })).toEqual(['/ports/http']);
    // Grants are data an admin sets (PUT /v1/organization/sso-grants), never values.
    expect(errorPaths(REQUIRED_INLINE, { sso: { roleGrants: [{ group: 'fs-platform', organizationId: 'org_a', role: 'admin' }] } })).toEqual(['/sso']);
  });

  it('are refused by helm itself, with what is wrong: a type, an enum, a pattern, a required value', () => {
    const refused = schemaErrors(REQUIRED_INLINE, {
      api: { replicas: 'three' },
      region: 'mars',
      secrets: { encryptionKey: 'g'.repeat(64) },
      image: { repository: '' },
    });
    expect(refused.map((e) => e.path).sort()).toEqual(['/api/replicas', '/image/repository', '/region', '/secrets/encryptionKey']);
    expect(refused.find((e) => e.path === '/api/replicas')?.message).toMatch(/got string, want integer/);
    expect(refused.find((e) => e.path === '/region')?.message).toMatch(/one of 'eu', 'us'/);
    expect(refused.find((e) => e.path === '/secrets/encryptionKey')?.message).toMatch(/does not match pattern/);
  });

  it('are all documented in the chart README with their defaults, as values.schema.json describes them', () => {
    const undocumented = valueLeaves()
      .map(([path]) => path)
      .filter((path) => !describeValue(path));
    expect(undocumented).toEqual([]);
    const readme = readChartFile('README.md');
    const rows = readme.split('\n').filter((line) => line.startsWith('| `'));
    // On failure, the expected rows are the ones to paste into the README's values table.
    expect(rows).toEqual(valuesReference());
  });

  it('package the app version of package.json', () => {
    const { version } = JSON.parse(readFileSync(join(REPOSITORY, 'package.json'), 'utf8')) as { version: string };
    expect(chartMetadata.appVersion).toBe(version);
  });
});
