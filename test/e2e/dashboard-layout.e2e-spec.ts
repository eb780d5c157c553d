import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { browserSuiteHooks, cellsOutOfView, type Dashboard, drawnPixels, horizontalOverflow, openDashboard, type PageTrouble, resizePage, screenshot, seriousAccessibilityViolations } from '../support/dashboard-browser';
import { predictEach, seedDemo, trainedModel } from '../support/dashboard-data';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { cliJson, type RunningProcess, startApi } from '../support/processes';
import { type OrganizationWithToken, TestSuite } from '../support/suite';

jest.setTimeout(300_000);

/** A phone and a wide desktop screen (issue 43). */
const WIDTHS = [390, 1440] as const;

/**
 * The dashboard at a phone's and a desktop's width, in real Chromium against the real API: no page
 * wider than the screen, navigation folded on the phone and on one line on the desktop, no serious
 * accessibility violation, monitoring charts that read right after 1, 2 and 30 runs, and an audience
 * defined from the cutoff explorer (issue 43).
 */
describe('dashboard layout at 390 and 1440 px', () => {
  let suite: TestSuite;
  let org: OrganizationWithToken;
  let api: RunningProcess;
  let dashboard: Dashboard;
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
  const predictFor = (users: string[]) => predictEach(api, org.token.secret, users);
  const resizeTo = (width: number) => resizePage(page, width);
  const monitorRun = async () => expect(await cliJson<{ models: number }>(suite.env, ['monitor', 'run'])).toMatchObject({ models: 1 });
  const psiChart = () => page.getByRole('img', { name: 'Population stability index over time with the low, moderate and high bands' });

  beforeAll(async () => {
    suite = await TestSuite.create('dashboard_layout');
    org = await suite.createOrganization('dashboard_layout', ['--rate-limit', '100000', '--burst', '200000']);
    userIds = await seedDemo(suite, org.organization.id, 600, 40);
    // The schedule never fires during the test: the history is the test's own monitoring runs.
    api = await startApi({ ...suite.env, WORKER_MODE: 'inline', MONITORING_SCHEDULE: '0 0 1 1 *' });
    modelId = await trainedModel(api, org.token.secret, { name: 'checkout_7d', targetEvent: 'checkout' });
    dashboard = await openDashboard(api.baseUrl, org.token.secret);
    ({ page, trouble } = dashboard);
  });

  browserSuiteHooks(() => ({ dashboard, api, suite }));

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
    // Fewer than MIN_DRIFT_SAMPLE (300) predictions: this run measures no drift; the next, with about 400, does.
    await predictFor(userIds.slice(0, 200));
    await monitorRun();
    await resizeTo(WIDTHS[0]);
    await goTo(`#/monitoring/${modelId}`);
    for (const width of WIDTHS) {
      await resizeTo(width);
      await page.getByText(/^1 monitoring run in the last 14 days; the latest/).waitFor();
      expect(await drawnPixels(page.getByRole('img', { name: 'Inference latency p95 over time' }))).toBeGreaterThan(10);
      expect(await horizontalOverflow(page)).toBe(0);
      await screenshot(page, `layout-monitoring-1-run-${width}`);
    }
  });

  it('draws two monitoring runs', async () => {
    await predictFor(userIds.slice(200, 400));
    await monitorRun();
    await resizeTo(WIDTHS[0]);
    await goTo(`#/monitoring/${modelId}`);
    for (const width of WIDTHS) {
      await resizeTo(width);
      await page.getByText(/^2 monitoring runs in the last 14 days/).waitFor();
      expect(await drawnPixels(psiChart())).toBeGreaterThan(10);
      // The bands are coloured whatever the runs; the note says only the first run is left out of the line.
      await page.getByText('1 run had too few predictions to measure drift and is left out.').waitFor();
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
    await resizeTo(WIDTHS[0]);
    await goTo(`#/monitoring/${modelId}`);
    for (const width of WIDTHS) {
      await resizeTo(width);
      await page.getByText(/^30 monitoring runs in the last 14 days/).waitFor();
      expect(await drawnPixels(psiChart())).toBeGreaterThan(100);
      await page.getByText('1 run had too few predictions to measure drift and is left out.').waitFor();
      expect(await horizontalOverflow(page)).toBe(0);
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await screenshot(page, `layout-monitoring-30-runs-${width}`);
    }
  });

  it("defines an audience from the cutoff explorer's slider: its size, expected precision and recall, and a members download equal to the API's", async () => {
    const { labels } = (await request<{ labels: string[] }>(url(`/models/${modelId}`), admin())).body;
    await page.setViewportSize({ width: 1440, height: 900 });
    await goTo(`#/models/${modelId}`);
    await page.getByLabel(/^Cutoff/).focus();
    for (let k = 0; k < 10; k++) await page.keyboard.press('ArrowLeft');
    const cutoff = /\d\.\d\d/.exec((await page.locator('table.confusion caption').textContent()) ?? '')?.[0] ?? 'none';
    await page.getByRole('link', { name: `Define an audience of the users flagged at ${cutoff}` }).click();
    // The form starts at the explorer's model, label and cutoff, with that cutoff's validation figures.
    await page.getByRole('heading', { name: 'Define an audience' }).waitFor();
    expect(await page.getByLabel('Model').inputValue()).toBe(modelId);
    await page.getByText(`Probability of ${labels[1]} at least: ${cutoff}`).waitFor();
    const expected = (await page.getByRole('status').filter({ hasText: 'On the validation set' }).textContent()) ?? '';
    await page.getByLabel('Name').fill('likely buyers');
    await page.getByRole('button', { name: 'Create audience' }).click();
    await page.getByText('Audience likely buyers created').waitFor();

    const [listed] = (await request<Array<{ id: string; name: string; rule: unknown }>>(url('/audiences'), admin())).body;
    expect(listed).toMatchObject({ name: 'likely buyers', rule: { minConfidence: Number(cutoff) } });
    type Details = { size: number | null; precision: number | null; recall: number | null; validation: { share: number } | null };
    const details = await eventually('the audience computed', async () => {
      const answer = (await request<Details>(url(`/audiences/${listed.id}`), admin())).body;
      return answer.size === null ? undefined : answer;
    });
    const percent = (value: number | null) => (value === null ? '—' : `${(value * 100).toFixed(1)}%`);
    expect(details.size).toBeGreaterThan(0);
    expect(expected).toBe(
      `On the validation set, this audience holds ${percent(details.validation?.share ?? null)} of users; ${percent(details.precision)} of them had the label ${labels[1]} (precision), and it holds ${percent(details.recall)} of all who had it (recall).`,
    );
    const card = page.getByRole('article', { name: 'likely buyers' });
    const figures = [(details.size ?? 0).toLocaleString('en-GB'), percent(details.precision), percent(details.recall)];
    await card.getByRole('definition').first().getByText(figures[0], { exact: true }).waitFor();
    expect(await card.getByRole('definition').allTextContents()).toEqual(figures);
    await card.getByText(`checkout_7d: probability of ${labels[1]} ≥ ${cutoff}`).waitFor();

    const [download] = await Promise.all([page.waitForEvent('download'), card.getByRole('button', { name: 'Download members (CSV)' }).click()]);
    const downloaded = await readFile(await download.path(), 'utf8');
    const served = await fetch(url(`/audiences/${listed.id}/members`), { headers: { authorization: `Bearer ${org.token.secret}`, accept: 'text/csv' } });
    expect(downloaded).toBe(await served.text());
    expect(downloaded.trim().split('\n')).toHaveLength((details.size ?? 0) + 1);

    // The next bulk scoring run computes it again: the card draws its size after each run, and that run's changes.
    const run = await request<{ id: string }>(url(`/models/${modelId}/score`), { ...admin(), method: 'POST' });
    expect(run.status).toBe(202);
    const history = await eventually('the audience computed again', async () => {
      const answer = (await request<{ history: Array<{ runId: string; entered: number; left: number }> }>(url(`/audiences/${listed.id}`), admin())).body;
      return answer.history.some((entry) => entry.runId === run.body.id) ? answer.history : undefined;
    });
    const latest = history[history.length - 1];
    await resizeTo(WIDTHS[0]);
    await goTo(`#/audiences/${modelId}/${cutoff}`);
    await card.getByText(`${latest.entered.toLocaleString('en-GB')} entered and ${latest.left.toLocaleString('en-GB')} left with that run.`, { exact: false }).waitFor();
    const sizes = card.getByRole('img', { name: 'Members of likely buyers after each of its last 2 computations' });
    await sizes.waitFor();
    expect(await drawnPixels(sizes)).toBeGreaterThan(10);
    for (const width of WIDTHS) {
      await resizeTo(width);
      expect(await horizontalOverflow(page)).toBe(0);
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await screenshot(page, `layout-audiences-${width}`);
    }
  });

  it('fits every page in a phone and a desktop screen, folds the navigation on the phone, keeps it on one line on the desktop, with no serious accessibility violation', async () => {
    const pages = ['#/', '#/models', `#/models/${modelId}`, '#/monitoring', `#/users/${encodeURIComponent(userIds[0])}`, '#/live', '#/install', '#/tokens', '#/webhooks', '#/privacy', '#/settings', '#/audit'];
    const links = page.getByRole('navigation', { name: 'Main' }).getByRole('link');
    // Each page loads once and is then seen at both widths: a resize lays it out again, as a turned phone does.
    for (const hash of pages) {
      await page.setViewportSize({ width: WIDTHS[0], height: 900 });
      await goTo(hash);
      if (hash === '#/install') await expectTarballCheck();
      for (const width of WIDTHS) {
        await resizeTo(width);
        const name = `layout-${hash.replace(/[#/]+/g, '-').replace(/^-|-$/g, '').replace(/[^a-z0-9-]/gi, '_') || 'overview'}-${width}`;
        expect({ page: hash, width, overflow: await horizontalOverflow(page) }).toEqual({ page: hash, width, overflow: 0 });
        // On the phone, a table's rows are blocks: every column in view, none behind a sideways scroll.
        if (width === WIDTHS[0]) expect({ page: hash, width, outOfView: (await cellsOutOfView(page)).slice(0, 5) }).toEqual({ page: hash, width, outOfView: [] });
        expect({ page: hash, width, violations: await seriousAccessibilityViolations(page) }).toEqual({ page: hash, width, violations: [] });
        await screenshot(page, name);
      }
    }
    const menu = page.getByRole('button', { name: 'Menu' });
    // Folded on the phone: the first screen is the page, not eleven links; the menu button unfolds them.
    await resizeTo(390);
    expect(await links.first().isVisible()).toBe(false);
    await menu.click();
    await links.getByText('Audit log').waitFor();
    expect(await horizontalOverflow(page)).toBe(0);
    await screenshot(page, 'layout-menu-open-390');
    await links.getByText('Tokens').click();
    await page.getByRole('heading', { name: 'Tokens', exact: true }).waitFor();
    expect(await links.first().isVisible()).toBe(false);
    // On one line on the desktop, with no menu button.
    await resizeTo(1440);
    expect(await menu.isVisible()).toBe(false);
    const tops = await links.evaluateAll((anchors) => anchors.map((a) => Math.round((a as unknown as { getBoundingClientRect(): { top: number } }).getBoundingClientRect().top)));
    expect(new Set(tops).size).toBe(1);
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
