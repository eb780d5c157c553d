import type { Page } from 'playwright-core';
import { browserSuiteHooks, type Dashboard, drawnPixels, openDashboard, type PageTrouble, screenshot, signIn } from '../support/dashboard-browser';
import { predictEach, seedDemo, trainedModel } from '../support/dashboard-data';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { cliJson, type RunningProcess, startApi } from '../support/processes';
import { type OrganizationWithToken, TestSuite } from '../support/suite';

interface Version {
  version: number;
  state: string;
}

// Demo data, a trained model and four real monitoring runs (`foresight monitor run`) come first.
jest.setTimeout(300_000);

/** The dashboard in real Chromium against the real API process, with demo data (issue 20). */
describe('dashboard in Chromium', () => {
  let suite: TestSuite;
  let org: OrganizationWithToken;
  let empty: OrganizationWithToken;
  let api: RunningProcess;
  let dashboard: Dashboard;
  let page: Page;
  let trouble: PageTrouble;
  let modelId: string;
  let demoUser: string;
  let readToken: { id: string; token: string };
  const url = (path: string) => `${api.baseUrl}/v1${path}`;
  const admin = () => ({ token: org.token.secret });
  const dashboardUrl = () => `${api.baseUrl}/dashboard/`;
  const versions = async () => (await request<{ versions: Version[] }>(url(`/models/${modelId}/versions`), admin())).body.versions;
  const servingVersion = async () => (await versions()).find((v) => v.state === 'serving')?.version;
  const chart = (name: string) => page.getByRole('img', { name });
  const navigateTo = (name: string) => dashboard.navigateTo(name);
  const expectAccessible = () => dashboard.expectAccessible();

  beforeAll(async () => {
    suite = await TestSuite.create('dashboard');
    org = await suite.createOrganization('dashboard', ['--rate-limit', '100000', '--burst', '200000']);
    empty = await suite.createOrganization('empty');
    const userIds = await seedDemo(suite, org.organization.id, 1200, 45);
    demoUser = userIds[0];

    // The schedule never fires during the test: the history is the test's own monitoring runs.
    api = await startApi({ ...suite.env, WORKER_MODE: 'inline', MONITORING_SCHEDULE: '0 0 1 1 *' });
    modelId = await trainedModel(api, org.token.secret, { name: 'checkout_7d', targetEvent: 'checkout', schedule: '0 3 * * *' });
    await request(url('/models'), { ...admin(), method: 'POST', body: { name: 'upgrade_14d', targetEvent: 'upgrade', horizonDays: 14 } });
    // Traffic, then a real monitoring run, four times over: a history of real snapshots. The first round
    // passes MIN_DRIFT_SAMPLE predictions, so every run computes a PSI.
    for (const [from, to] of [[0, 400], [400, 450], [450, 500], [500, 550]]) {
      await predictEach(api, org.token.secret, userIds.slice(from, to));
      expect(await cliJson<{ models: number }>(suite.env, ['monitor', 'run'])).toMatchObject({ models: 1 });
    }
    // Refused events, counted by the ingestion stats: a batch of 3 refused whole, and one skipped Segment message.
    expect((await request(url('/events'), { ...admin(), method: 'POST', body: [{ event: 'ok', userId: 'u' }, { event: 'ok', userId: 'u' }, { event: 'ok' }] })).status).toBe(400);
    const segment = { batch: [{ type: 'track', event: 'opened', userId: 'u', context: { library: { name: 'analytics.js' } } }, { type: 'track', userId: 'u' }] };
    expect((await request(url('/batch'), { ...admin(), method: 'POST', body: segment })).body).toMatchObject({ accepted: 1, rejected: 1 });
    const read = await request<{ id: string; token: string }>(url('/tokens'), { ...admin(), method: 'POST', body: { environment: 'prod', scopes: ['read'] } });
    readToken = read.body;

    dashboard = await openDashboard(api.baseUrl);
    ({ page, trouble } = dashboard);
  });

  browserSuiteHooks(() => ({ dashboard, api, suite }));

  it('is served with a strict CSP and refuses a bad token with a clear message', async () => {
    const response = await page.goto(dashboardUrl());
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(response?.headers()['x-frame-options']).toBe('DENY');
    const bare = await fetch(`${api.baseUrl}/dashboard`, { redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/dashboard/');
    const script = await page.locator('script[src]').getAttribute('src');
    const asset = await fetch(new URL(script ?? '', api.baseUrl));
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect(asset.headers.get('content-security-policy')).toBe(csp);
    const missing = await request(`${api.baseUrl}/dashboard/assets/missing.js`);
    expect(missing).toMatchObject({ status: 404, body: { error: 'not_found' } });
    await screenshot(page, 'sign-in');
    await expectAccessible();
    await page.getByLabel('Organization token').fill('pat_prod_thisisnotarealtoken');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('unknown, revoked or expired');
    trouble.consoleErrors.length = 0; // Chromium logs the refused sign-in's 401 as a console error; it is the point of this test.
  });

  it('signs in with the typed token, kept in sessionStorage only, and shows the overview with drawn charts', async () => {
    await signIn(page, dashboardUrl(), org.token.secret);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('foresight.token'))).toBe(org.token.secret);
    expect(await page.evaluate('document.cookie')).toBe('');
    expect(page.url()).not.toContain(org.token.secret);
    await chart('Events per hour, stacked by event name').waitFor();
    expect(await drawnPixels(chart('Events per hour, stacked by event name'))).toBeGreaterThan(500);
    expect(await drawnPixels(chart('Active users per hour'))).toBeGreaterThan(200);
    await page.getByRole('link', { name: 'checkout_7d' }).waitFor();
    await expect(page.locator('.health-list').textContent()).resolves.toMatch(/checkout_7d.*(Healthy|Drifting)/);
    const ingestion = page.getByRole('region', { name: 'Ingestion and rejections' });
    await ingestion.getByText('4 rejected').waitFor();
    await expect(ingestion.textContent()).resolves.toMatch(/4 rejected of [\d,]+ events received in this window, counted by when they arrived/);
    // The two panels count differently, and say so: events by when they happened, ingestion by arrival.
    await expect(page.getByRole('region', { name: 'Events per hour' }).textContent()).resolves.toMatch(/[\d,]+ events of \d+ kinds occurred in this window, counted by when they happened/);
    const byLibrary = ingestion.getByRole('table', { name: 'Events received per sending library' });
    await expect(byLibrary.getByRole('row', { name: /analytics\.js/ }).textContent()).resolves.toMatch(/analytics\.js\s*1\s*0\s*1/);
    await expect(byLibrary.getByRole('row', { name: /direct/ }).textContent()).resolves.toMatch(/direct\s*0\s*0\s*3/);
    // Seeded events count as received too, under the seeder's name.
    await expect(byLibrary.getByRole('row', { name: /demo seed/ }).textContent()).resolves.toMatch(/demo seed\s*[1-9][\d,]*\s*0\s*0/);
    expect(await drawnPixels(chart('Rejected events per hour, by sending library'))).toBeGreaterThan(50);
    await page.getByLabel('Last 30 days').check();
    await chart('Events per day, stacked by event name').waitFor();
    expect(await drawnPixels(chart('Events per day, stacked by event name'))).toBeGreaterThan(500);
    await screenshot(page, 'overview');
    await expectAccessible();
  });

  it('lists models with status, health, grade, serving version and schedule', async () => {
    await navigateTo('Models');
    const row = page.getByRole('row', { name: /checkout_7d/ });
    await row.getByText(/^v1 \(/).waitFor();
    await expect(row.textContent()).resolves.toMatch(/active.*(Healthy|Drifting).*(Excellent|Good|Fair|Weak|Not useful).*v1.*0 3 \* \* \*/);
    await expect(page.getByRole('row', { name: /upgrade_14d/ }).textContent()).resolves.toMatch(/untrained.*Not trained/);
    // The two-week badge: today from the four runs above, the thirteen days before without any.
    const listed = (await request<Array<{ name: string; health: Array<{ day: string; health: string }> }>>(url('/models'), admin())).body;
    const apiHealth = listed.find((m) => m.name === 'checkout_7d')?.health ?? [];
    expect(apiHealth.map((d) => d.health).slice(0, 13)).toEqual(new Array(13).fill('no_data'));
    expect(apiHealth[13]).toMatchObject({ day: new Date().toISOString().slice(0, 10), health: expect.stringMatching(/^(healthy|degraded|failing)$/) });
    const strip = row.getByRole('img', { name: /^Health over the last 14 days: 13 no data, 1 (healthy|degraded|failing)$/ });
    const squares = await strip.locator('.day').all();
    expect(await Promise.all(squares.map((square) => square.getAttribute('data-health')))).toEqual(apiHealth.map((d) => d.health));
    // The form's events arrive with their own query: once they have, the target is offered once.
    await page.getByLabel('Target event').locator('option', { hasText: 'checkout' }).first().waitFor({ state: 'attached' });
    await expect(page.getByLabel('Target event').locator('option', { hasText: 'checkout' }).count()).resolves.toBe(1);
    await screenshot(page, 'models');
    await expectAccessible();
  });

  it('creates a model from the form, with the target event picked from the organization\'s events', async () => {
    await page.getByLabel('Name').fill('churn_30d');
    await page.getByLabel('Target event').selectOption('churn');
    await page.getByLabel('Horizon (days)').fill('30');
    await page.getByLabel('Algorithm').selectOption('logistic');
    await page.getByRole('button', { name: 'Create model' }).click();
    await page.getByRole('heading', { name: 'Not trained yet' }).waitFor();
    const models = (await request<Array<{ name: string; targetEvent: string; id: string }>>(url('/models'), admin())).body;
    const created = models.find((m) => m.name === 'churn_30d');
    expect(created).toMatchObject({ targetEvent: 'churn' });
    expect(await request(url(`/models/${created?.id}`), admin())).toMatchObject({ body: { horizonDays: 30, algorithm: 'logistic', schedule: null } });
    expect(page.url()).toContain(`#/models/${created?.id}`);
    await screenshot(page, 'model-untrained');
    await navigateTo('Models');

    // A churn model in GA4's sense: no target event to pick, the activity window instead. The Models
    // page's form, not the Rename field of the model page still shown while the link's route changes.
    await page.getByRole('heading', { name: 'Create a model' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('goes_quiet_14d');
    await page.getByLabel('Predicts').selectOption('inactivity');
    await expect(page.getByLabel('Target event').count()).resolves.toBe(0);
    await page.getByLabel('Active within (days)').fill('10');
    await page.getByLabel('Horizon (days)').fill('14');
    await page.getByRole('button', { name: 'Create model' }).click();
    await page.getByRole('heading', { name: 'Not trained yet' }).waitFor();
    const quiet = (await request<Array<{ name: string; id: string }>>(url('/models'), admin())).body.find((m) => m.name === 'goes_quiet_14d');
    expect(await request(url(`/models/${quiet?.id}`), admin())).toMatchObject({ body: { kind: 'inactivity', targetEvent: null, activeDays: 10, horizonDays: 14, labels: ['stays', 'churns'] } });
    await expect(page.getByText('no event at all within 14 days, among users active in the last 10 days').count()).resolves.toBe(1);
    await navigateTo('Models');
  });

  it("shows a model's quality, drivers, calibration, score distribution and a threshold explorer", async () => {
    await page.getByRole('link', { name: 'checkout_7d' }).click();
    await page.getByRole('heading', { name: /Quality of version 1/ }).waitFor();
    await expect(page.locator('.grade').textContent()).resolves.toMatch(/(Excellent|Good|Fair|Weak|Not useful).*% of the time/);
    expect(await page.locator('.importance li').count()).toBeGreaterThan(2);
    // Each shown feature says whether it raises or lowers the probability, as the API stores it.
    const stored = (await request<{ featureImportance: Array<{ feature: string; label: string; weight: number; direction: string }> }>(url(`/models/${modelId}`), admin())).body.featureImportance;
    const items = await page.locator('.importance li').all();
    const shownFeatures = await Promise.all(items.map(async (li) => [await li.locator('.feature').textContent(), await li.locator('.direction').textContent()]));
    const words: Record<string, string> = { raises: '↑ raises', lowers: '↓ lowers', none: 'no effect' };
    expect(shownFeatures).toEqual(stored.filter((f) => f.weight > 0).slice(0, 12).map((f) => [f.label, words[f.direction]]));
    expect(stored.some((f) => f.direction === 'raises' || f.direction === 'lowers')).toBe(true);
    await page.getByRole('img', { name: /^Health over the last 14 days/ }).waitFor();
    for (const name of ['Reliability diagram: observed rate against mean predicted probability', 'Score distribution by actual outcome', 'Precision, recall and share of users flagged by cutoff']) {
      await chart(name).waitFor();
      expect(await drawnPixels(chart(name))).toBeGreaterThan(200);
    }
    const matrix = page.locator('table.confusion');
    const atHalf = await matrix.textContent();
    await page.getByLabel(/Cutoff/).focus();
    for (let k = 0; k < 10; k++) await page.keyboard.press('ArrowLeft');
    await expect(matrix.locator('caption').textContent()).resolves.toContain('0.30');
    expect(await matrix.textContent()).not.toBe(atHalf);
    await screenshot(page, 'model');
    await expectAccessible();
  });

  it('retrains from the page, then rolls back from the version history: the API state follows', async () => {
    await page.getByRole('button', { name: 'Retrain now' }).click();
    expect((await request<{ status: string }>(url(`/models/${modelId}`), admin())).body.status).toMatch(/retraining|active/);
    await eventually('a second version', async () => ((await versions()).length === 2 ? true : undefined), 120_000);
    await page.getByRole('rowheader', { name: 'v2' }).waitFor();
    const serving = await servingVersion();
    const other = serving === 2 ? 1 : 2;
    await page.getByRole('button', { name: other === 1 ? 'Roll back to v1' : 'Promote v2' }).click();
    await eventually('the promoted version serving', async () => ((await servingVersion()) === other ? true : undefined));
    await page.getByRole('heading', { name: `Quality of version ${other}` }).waitFor();
    await page.getByLabel(/Retraining schedule/).fill('15 4 * * 1');
    await page.getByRole('button', { name: 'Save schedule' }).click();
    await page.getByText('Schedule saved.').waitFor();
    expect((await request<{ schedule: string }>(url(`/models/${modelId}`), admin())).body.schedule).toBe('15 4 * * 1');
    await screenshot(page, 'model-after-rollback');
  });

  it('renames and deletes a model from its page, deleting only after confirmation', async () => {
    const upgrade = (await request<Array<{ id: string; name: string }>>(url('/models'), admin())).body.find((m) => m.name === 'upgrade_14d');
    await navigateTo('Models');
    await page.getByRole('link', { name: 'upgrade_14d' }).click();
    await page.getByRole('heading', { name: 'Manage' }).waitFor();
    await page.getByLabel(/^Name/).fill('upgrade_two_weeks');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByText('Renamed to upgrade_two_weeks.').waitFor();
    expect((await request<{ name: string }>(url(`/models/${upgrade?.id}`), admin())).body.name).toBe('upgrade_two_weeks');
    await page.getByRole('heading', { name: /^upgrade_two_weeks/ }).waitFor();

    await page.getByRole('button', { name: 'Delete model…' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Delete upgrade_two_weeks?' });
    await confirm.waitFor();
    await screenshot(page, 'model-delete-confirm');
    await expectAccessible();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect((await request(url(`/models/${upgrade?.id}`), admin())).status).toBe(200);
    // From the keyboard: the confirmation takes the focus, Escape cancels it.
    await page.getByRole('button', { name: 'Delete model…' }).focus();
    await page.keyboard.press('Enter');
    await confirm.waitFor();
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Delete model…' }).click();
    await page.getByRole('button', { name: 'Yes, delete upgrade_two_weeks' }).click();
    await page.getByRole('heading', { name: 'Your models' }).waitFor();
    expect((await request(url(`/models/${upgrade?.id}`), admin())).status).toBe(404);
    await page.getByRole('link', { name: 'checkout_7d' }).waitFor();
    expect(await page.getByRole('link', { name: 'upgrade_two_weeks' }).count()).toBe(0);
    await page.getByRole('link', { name: 'checkout_7d' }).click();
    await page.getByRole('heading', { name: /Quality of version/ }).waitFor();
  });

  it('shows monitoring over time: accuracy, PSI with its bands, latency and throughput', async () => {
    await navigateTo('Monitoring');
    await page.getByText(/^4 monitoring runs in the last 14 days; the latest/).waitFor();
    for (const name of ['Accuracy and mean confidence shift over time', 'Population stability index over time with the low, moderate and high bands', 'Inference latency p95 over time', 'Predictions per minute over time']) {
      // Four runs minutes apart sit together on an axis at least two hours wide: a few dots and short lines.
      expect(await drawnPixels(chart(name))).toBeGreaterThan(40);
    }
    await screenshot(page, 'monitoring');
    await expectAccessible();
  });

  it("looks a user up: predictions now, sessions and latest events", async () => {
    await navigateTo('User lookup');
    await page.getByLabel('User id').fill(demoUser);
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.locator('.predictions li').first().waitFor();
    await expect(page.locator('.predictions').textContent()).resolves.toMatch(/checkout_7d: (likely|unlikely) \(\d+\.\d% confident/);
    // Why this score, as the API explains it: the features that raised it most and those that lowered it most.
    type Explained = { predictions: Array<{ explanation: { contributions: Array<{ feature: string; label: string; contribution: number }> } | null }> };
    const [{ explanation }] = (await request<Explained>(url(`/predict?userId=${encodeURIComponent(demoUser)}&explain=true`), admin())).body.predictions;
    const features = explanation?.contributions.filter((c) => c.feature !== 'other') ?? [];
    const side = (sign: number) => features.filter((c) => sign * c.contribution > 0).slice(0, 3).map((c) => c.label).join('; ');
    expect(features.length).toBeGreaterThan(0);
    const reasons = page.locator('.predictions .reasons');
    if (side(1)) await expect(reasons.textContent()).resolves.toContain(`Raised by ${side(1)}.`);
    if (side(-1)) await expect(reasons.textContent()).resolves.toContain(`Lowered by ${side(-1)}.`);
    const latest = await request<{ events: unknown[] }>(url(`/users/events?userId=${encodeURIComponent(demoUser)}&limit=50`), admin());
    const eventRows = page.getByRole('table', { name: "The user's latest events, newest first" }).locator('tbody tr');
    await eventRows.first().waitFor();
    expect(await eventRows.count()).toBe(latest.body.events.length);
    await page.getByRole('table', { name: "The user's latest sessions, newest first" }).locator('tbody tr').first().waitFor();
    await screenshot(page, 'user');
    await expectAccessible();
    await page.getByLabel('User id').fill('nobody-at-all');
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByRole('heading', { name: 'No such user' }).waitFor();
    trouble.consoleErrors.length = 0; // the 404s of the unknown user, logged by Chromium, are what this step asks for
  });

  it('signs out, and an organization without data gets empty states that teach', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You signed out').waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('foresight.token'))).toBeNull();
    await signIn(page, dashboardUrl(), empty.token.secret);
    await page.getByRole('heading', { name: 'No events yet' }).waitFor();
    await expect(page.locator('pre').textContent()).resolves.toContain('/sdk/foresight.js');
    await page.getByRole('heading', { name: 'No model yet' }).waitFor();
    await screenshot(page, 'overview-empty');
    await expectAccessible();
    await page.getByRole('button', { name: 'Sign out' }).click();
  });

  it('lets a read-scope token see everything but act on nothing', async () => {
    await signIn(page, dashboardUrl(), readToken.token);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await navigateTo('Models');
    await page.getByText('creating models needs a token with the admin scope').waitFor();
    expect(await page.getByRole('button', { name: 'Create model' }).count()).toBe(0);
    await page.getByRole('link', { name: 'checkout_7d' }).click();
    await page.getByRole('heading', { name: /Quality of version/ }).waitFor();
    expect(await page.getByRole('button', { name: /Retrain|Roll back|Promote|Save schedule|Rename|Delete/ }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Manage' }).count()).toBe(0);
    await page.getByText('retraining and schedules need a token with the admin scope').waitFor();
    await screenshot(page, 'model-read-only');
    await expectAccessible();
  });

  it('returns to sign-in with a clear message once the token is revoked', async () => {
    expect((await request(url(`/tokens/${readToken.id}`), { ...admin(), method: 'DELETE' })).status).toBe(200);
    await navigateTo('Monitoring');
    await page.getByText('Your session ended: the token expired or was revoked').waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('foresight.token'))).toBeNull();
    await screenshot(page, 'signed-out-revoked');
    trouble.consoleErrors.length = 0; // the 401 that ended the session, logged by Chromium
  });
});
