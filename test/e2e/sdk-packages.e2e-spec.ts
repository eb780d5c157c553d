import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { request } from '../support/http';
import { withApiSuite } from '../support/suite';

const run = promisify(execFile);

interface Packages {
  packages: Array<{ name: string; version: string; file: string; path: string }>;
}

/** The SDKs as npm tarballs served by the deployment itself: installable on a network with no registry. */
describe('SDK packages served at /sdk/<file>.tgz', () => {
  const t = withApiSuite('sdk_packages');
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'foresight-sdk-install-'));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const listed = async () => (await request<Packages>(`${t.api.baseUrl}/sdk/packages`)).body.packages;

  it('lists the packed packages without a token, by name, version and path', async () => {
    const expected = async (folder: string) => JSON.parse(await readFile(join(__dirname, '..', '..', 'libs', folder, 'package.json'), 'utf8')) as { name: string; version: string };
    const [node, reactNative] = await Promise.all([expected('sdk-node'), expected('sdk-react-native')]);
    expect(await listed()).toEqual([
      { name: '@foresight/node', version: node.version, file: `foresight-node-${node.version}.tgz`, path: `/sdk/foresight-node-${node.version}.tgz` },
      { name: '@foresight/react-native', version: reactNative.version, file: `foresight-react-native-${reactNative.version}.tgz`, path: `/sdk/foresight-react-native-${reactNative.version}.tgz` },
    ]);
  });

  it('serves each tarball as gzip with caching, revalidation and the /sdk headers; anything else is 404', async () => {
    for (const { path, file } of await listed()) {
      const answer = await fetch(`${t.api.baseUrl}${path}`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('application/gzip');
      expect(answer.headers.get('cache-control')).toBe('public, max-age=86400');
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('content-disposition')).toBe(`attachment; filename="${file}"`);
      const body = Buffer.from(await answer.arrayBuffer());
      expect([...body.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
      const again = await fetch(`${t.api.baseUrl}${path}`, { headers: { 'if-none-match': answer.headers.get('etag') ?? '' } });
      expect(again.status).toBe(304);
    }
    for (const missing of ['/sdk/foresight-node-9.9.9.tgz', '/sdk/..%2Fpackage.json', '/sdk/node']) {
      expect(await request(`${t.api.baseUrl}${missing}`)).toMatchObject({ status: 404, body: { error: 'not_found' } });
    }
  });

  it('installs with `npm install <url>` into a project with no registry reachable, and the Node SDK imports and sends', async () => {
    const urls = (await listed()).map(({ path }) => `${t.api.baseUrl}${path}`);
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'installs-foresight', version: '1.0.0', private: true, type: 'module' }));
    // A registry nothing listens on: the install may only use the deployment's URLs. React Native's
    // peers (react-native, AsyncStorage) are the app's own and are not installed here.
    await run('npm', ['install', '--no-audit', '--no-fund', '--legacy-peer-deps', '--registry', 'http://127.0.0.1:9/', '--cache', join(dir, '.npm-cache'), ...urls], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir },
    });
    const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['@foresight/node', '@foresight/react-native']);
    const script = `
      import { Foresight } from '@foresight/node';
      const foresight = Foresight.init(process.env.FORESIGHT_TOKEN, { host: process.env.FORESIGHT_HOST });
      foresight.track({ event: 'installed_from_the_deployment', userId: 'npm-user' });
      await foresight.shutdown();
      console.log(JSON.parse(await (await import('node:fs/promises')).readFile('node_modules/@foresight/react-native/package.json', 'utf8')).name);
    `;
    await writeFile(join(dir, 'send.mjs'), script);
    const { stdout } = await run(process.execPath, ['send.mjs'], { cwd: dir, env: { PATH: process.env.PATH ?? '', FORESIGHT_TOKEN: t.org.token.secret, FORESIGHT_HOST: t.api.baseUrl } });
    expect(stdout.trim()).toBe('@foresight/react-native');
    const [{ n }] = await t.suite.sql<{ n: string }>(`SELECT count(*) AS n FROM events WHERE organization_id = $1 AND event = 'installed_from_the_deployment'`, [t.org.organization.id]);
    expect(Number(n)).toBe(1);
  }, 240_000);
});
