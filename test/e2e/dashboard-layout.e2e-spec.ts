import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium';
import { drawnPixels, horizontalOverflow, type PageTrouble, screenshot, seriousAccessibilityViolations, signIn, watchPage } from '../support/dashboard-browser';
import { request } from '../support/http';
import { cliJson, type RunningProcess, startApi } from '../support/processes';
import { type OrganizationWithToken, TestSuite } from '../support/suite';
import { settledModel } from '../support/training';

jest.setTimeout(300_000);

/** A phone and a wide desktop screen (issue 43). */
const WIDTHS = [390, 1440] as const;

/**
 * The dashboard at a phone's and a desktop's width, in real Chromium against the real API: no page
 * wider than the screen, navigation folded on the phone and on one line on the desktop, no serious
 * accessibility violation, and monitoring charts that read right after 1, 2 and 30 runs (issue 43).
 */
describe('dashboard layout at 390 and 1440 px', () => {
  let suite: TestSuite;
  let org: OrganizationWithToken;
  let api: RunningProcess;
  let browser: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  let page: Page;
  let trouble: PageTrouble;
  let modelId: string;
  let userIds: string[];
  const url = (path: string) => `${api.baseUrl}/v1${path}`;
  const admin = () => ({ token: org.token.secret });
  /** Loads the dashboard afresh at a page (a hash change alone would show the answers it cached). */
  const goTo = async (hash: string) => {
    await page.goto('about:blank');
    await page.goto(`${api.baseUrl}/dashboard/${hash}`);
    await page.locator('main h1').first().waitFor();
    await page.waitForFunction(() => !(globalThis as unknown as { document: { querySelector(s: string): unknown } }).document.querySelector('.state.loading'));
  };
  /**
   * The install page asks whether this deployment serves its SDK tarballs (HEAD /sdk/…tgz) and says so
   * when it does not; Chromium logs those 404s as console errors, which are then the point, not trouble.
   */
  const expectTarballCheck = async () => {
    const { version } = (await request<{ version: string }>(url('/health'), admin())).body;
    const served = (await fetch(`${api.baseUrl}/sdk/foresight-node-${version}.tgz`, { method: 'HEAD' })).ok;
    if (served) return;
    await page.getByText(`This deployment does not serve /sdk/foresight-node-${version}.tgz yet`).waitFor();
    await page.getByText(`This deployment does not serve /sdk/foresight-react-native-${version}.tgz yet`).waitFor();
    expect(trouble.consoleErrors.every((error) => error.includes('404'))).toBe(true);
    trouble.consoleErrors.length = 0;
  };
  const monitorRun = async () => expect(await cliJson<{ models: number }>(suite.env, ['monitor', 'run'])).toMatchObject({ models: 1 });
  const psiChart = () => page.getByRole('img', { name: 'Population stability index over time with the low, moderate and high bands' });

  beforeAll(async () => {
    suite = await TestSuite.create('dashboard_layout');
    org = await suite.createOrganization('dashboard_layout', ['--rate-limit', '100000', '--burst', '200000']);
    const dir = await mkdtemp(join(tmpdir(), 'foresight-dashboard-layout-'));
    await cliJson(suite.env, ['demo', 'seed', '--org', org.organization.id, '--users', '600', '--days', '40', '--truth-file', join(dir, 'truth.json')]);
    userIds = (JSON.parse(await readFile(join(dir, 'truth.json'), 'utf8')) as { users: Array<{ userId: string }> }).users.map((u) => u.userId);
    await rm(dir, { recursive: true, force: true });
    // The schedule never fires during the test: the history is the test's own monitoring runs.
    api = await startApi({ ...suite.env, WORKER_MODE: 'inline', MONITORING_SCHEDULE: '0 0 1 1 *' });
    modelId = (await request<{ id: string }>(url('/models'), { ...admin(), method: 'POST', body: { name: 'checkout_7d', targetEvent: 'checkout' } })).body.id;
    await request(url('/models/retrain'), { ...admin(), method: 'POST', body: { modelId } });
    expect(await settledModel(api.baseUrl, org.token.secret, modelId, api)).toMatchObject({ status: 'active', lastError: null });
    ({ browser, close: closeBrowser } = await launchChromium());
    page = await browser.newPage();
    trouble = watchPage(page, new URL(api.baseUrl).origin);
    await signIn(page, `${api.baseUrl}/dashboard/`, org.token.secret);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  });

  afterAll(async () => {
    await closeBrowser?.();
    await api?.stop();
    await suite?.destroy();
  });

  afterEach(() => {
    expect(trouble?.consoleErrors).toEqual([]);
    expect(trouble?.foreignRequests).toEqual([]);
  });

  it('says how to run monitoring, and calls no model healthy, before any monitoring run', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await goTo('#/models');
    const row = page.getByRole('row', { name: /checkout_7d/ });
    await row.getByText('No monitoring yet').waitFor();
    expect(await row.getByText('Healthy').count()).toBe(0);
    await goTo('#/monitoring');
    await page.getByRole('heading', { name: 'No monitoring runs yet' }).waitFor();
    await expect(page.locator('main').textContent()).resolves.toContain('npm run cli -- monitor run');
    await screenshot(page, 'layout-monitoring-0-runs-1440');
  });

  it('draws one monitoring run as a point on a sensible axis, and says "1 monitoring run"', async () => {
    for (const user of userIds.slice(0, 150)) await request(url(`/predict?userId=${encodeURIComponent(user)}`), admin());
    await monitorRun();
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await goTo(`#/monitoring/${modelId}`);
      await page.getByText(/^1 monitoring run in the last 14 days; the latest/).waitFor();
      expect(await drawnPixels(page.getByRole('img', { name: 'Inference latency p95 over time' }))).toBeGreaterThan(10);
      expect(await horizontalOverflow(page)).toBe(0);
      await screenshot(page, `layout-monitoring-1-run-${width}`);
    }
  });

  it('draws two monitoring runs', async () => {
    for (const user of userIds.slice(150, 300)) await request(url(`/predict?userId=${encodeURIComponent(user)}`), admin());
    await monitorRun();
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await goTo(`#/monitoring/${modelId}`);
      await page.getByText(/^2 monitoring runs in the last 14 days/).waitFor();
      expect(await drawnPixels(psiChart())).toBeGreaterThan(10);
      await screenshot(page, `layout-monitoring-2-runs-${width}`);
    }
  });

  it('draws thirty monitoring runs over two weeks', async () => {
    // The two real snapshots, copied back in time as if the hourly job had run for two weeks (a fixture
    // of history: the job's snapshot rows, PSI varied so the line moves through the bands).
    await suite.sql(
      `INSERT INTO model_snapshots (organization_id, model_id, version_id, version, computed_at, accuracy, accuracy_source, matured_predictions,
                                    latency_p95_ms, throughput_per_min, predictions_24h, mean_confidence_24h, drift_delta, psi, drift_status)
       SELECT organization_id, model_id, version_id, version, computed_at - k * interval '11 hours', accuracy, accuracy_source, matured_predictions,
              latency_p95_ms, throughput_per_min + k, predictions_24h, mean_confidence_24h, drift_delta, 0.02 + 0.012 * k, drift_status
         FROM (SELECT * FROM model_snapshots WHERE model_id = $1 ORDER BY computed_at DESC LIMIT 1) latest, generate_series(1, 28) AS k`,
      [modelId],
    );
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await goTo(`#/monitoring/${modelId}`);
      await page.getByText(/^30 monitoring runs in the last 14 days/).waitFor();
      expect(await drawnPixels(psiChart())).toBeGreaterThan(100);
      expect(await horizontalOverflow(page)).toBe(0);
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await screenshot(page, `layout-monitoring-30-runs-${width}`);
    }
  });

  it('fits every page in a phone and a desktop screen, folds the navigation on the phone, keeps it on one line on the desktop, with no serious accessibility violation', async () => {
    const pages = ['#/', '#/models', `#/models/${modelId}`, '#/monitoring', `#/users/${encodeURIComponent(userIds[0])}`, '#/live', '#/install', '#/tokens', '#/webhooks', '#/privacy', '#/settings', '#/audit'];
    const links = page.getByRole('navigation', { name: 'Main' }).getByRole('link');
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      for (const hash of pages) {
        await goTo(hash);
        if (hash === '#/install') await expectTarballCheck();
        const name = `layout-${hash.replace(/[#/]+/g, '-').replace(/^-|-$/g, '').replace(/[^a-z0-9-]/gi, '_') || 'overview'}-${width}`;
        expect({ page: hash, width, overflow: await horizontalOverflow(page) }).toEqual({ page: hash, width, overflow: 0 });
        expect({ page: hash, width, violations: await seriousAccessibilityViolations(page) }).toEqual({ page: hash, width, violations: [] });
        await screenshot(page, name);
      }
      const menu = page.getByRole('button', { name: 'Menu' });
      if (width === 390) {
        // Folded: the first screen is the page, not eleven links; the menu button unfolds them.
        expect(await links.first().isVisible()).toBe(false);
        await menu.click();
        await links.getByText('Audit log').waitFor();
        expect(await horizontalOverflow(page)).toBe(0);
        await screenshot(page, 'layout-menu-open-390');
        await links.getByText('Tokens').click();
        await page.getByRole('heading', { name: 'Tokens', exact: true }).waitFor();
        expect(await links.first().isVisible()).toBe(false);
      } else {
        expect(await menu.isVisible()).toBe(false);
        const tops = await links.evaluateAll((anchors) => anchors.map((a) => Math.round((a as unknown as { getBoundingClientRect(): { top: number } }).getBoundingClientRect().top)));
        expect(new Set(tops).size).toBe(1);
      }
    }
  });

  it('shows the feature names in words, the user lookup keeps the user shown, and the install page serves its own SDK packages', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await goTo(`#/models/${modelId}`);
    const stored = (await request<{ featureImportance: Array<{ feature: string; label: string; weight: number }> }>(url(`/models/${modelId}`), admin())).body.featureImportance;
    const shown = await page.locator('.importance .feature').allTextContents();
    expect(shown).toEqual(stored.filter((f) => f.weight > 0).slice(0, 12).map((f) => f.label));
    expect(shown.some((text) => /_\d+d\b/.test(text))).toBe(false);

    await goTo(`#/users/${encodeURIComponent(userIds[1])}`);
    expect(await page.getByLabel('User id').inputValue()).toBe(userIds[1]);
    await page.getByRole('heading', { name: `Predictions now for ${userIds[1]}` }).waitFor();

    await goTo('#/install');
    const node = page.getByRole('region', { name: 'Node: @foresight/node' });
    const { version } = (await request<{ version: string }>(url('/health'), admin())).body;
    await expect(node.textContent()).resolves.toContain(`npm install ${api.baseUrl}/sdk/foresight-node-${version}.tgz`);
    await expect(page.getByRole('region', { name: 'React Native: @foresight/react-native' }).textContent()).resolves.toContain('HTTPS only');
    await expectTarballCheck();
    expect(await node.getByRole('button', { name: 'Copy' }).count()).toBe(2);
  });
});
