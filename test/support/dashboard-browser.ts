import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { launchChromium } from './chromium';
import type { RunningProcess } from './processes';
import type { TestSuite } from './suite';

/** Screenshots of every dashboard page, kept as test artifacts (git-ignored). */
export const SCREENSHOT_DIR = join(__dirname, '..', '..', 'test-output', 'dashboard');

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** What went wrong in the page while a test drove it: console errors, uncaught errors, requests elsewhere. */
export interface PageTrouble {
  consoleErrors: string[];
  foreignRequests: string[];
}

/** Records console errors, page errors and any request leaving the dashboard's origin. */
export function watchPage(page: Page, origin: string): PageTrouble {
  const trouble: PageTrouble = { consoleErrors: [], foreignRequests: [] };
  page.on('console', (message) => {
    if (message.type() === 'error') trouble.consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => trouble.consoleErrors.push(error.message));
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin !== origin && url.protocol !== 'data:') trouble.foreignRequests.push(request.url());
  });
  return trouble;
}

/** The dashboard's sign-in form, filled and sent as a person would. */
export async function signIn(page: Page, dashboardUrl: string, token: string): Promise<void> {
  await page.goto(dashboardUrl);
  await page.getByLabel('Organization token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The little of the DOM these page functions touch (the tests compile without DOM types). */
interface CanvasContainer {
  querySelectorAll(selector: 'canvas'): ArrayLike<{
    width: number;
    height: number;
    getContext(kind: '2d'): { getImageData(x: number, y: number, width: number, height: number): { data: Uint8ClampedArray } } | null;
  }>;
}

interface AxeWindow {
  axe: { run(context: unknown, options: object): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> };
  document: unknown;
}

/**
 * Pixels of a chart's canvases in colour (a series' stroke, fill or point): axes, grid and labels are
 * grey or black, so a chart with nothing drawn counts 0.
 */
export function drawnPixels(chart: Locator): Promise<number> {
  return chart.evaluate((element) => {
    let colourful = 0;
    for (const canvas of Array.from((element as unknown as CanvasContainer).querySelectorAll('canvas'))) {
      const context = canvas.getContext('2d');
      if (!context || canvas.width === 0 || canvas.height === 0) continue;
      const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
      for (let i = 0; i < data.length; i += 4) {
        const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
        if (a > 0 && Math.max(r, g, b) - Math.min(r, g, b) > 60) colourful++;
      }
    }
    return colourful;
  });
}

/** axe-core's serious and critical violations on the page as it is now (WCAG 2 A and AA rules). */
export async function seriousAccessibilityViolations(page: Page): Promise<Array<{ id: string; impact: string; targets: string[] }>> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern.
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const { axe, document } = globalThis as unknown as AxeWindow;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return result.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => ({ id: violation.id, impact: violation.impact, targets: violation.nodes.map((node) => node.target.join(' ')) }));
  });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** How many pixels the page is wider than the viewport (0 when nothing spills sideways). */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
    return Math.max(0, root.scrollWidth - root.clientWidth);
  });
}

/** The table cells that end beyond the viewport's right edge, as "column: text" (a table scrolled sideways hides them). */
export function cellsOutOfView(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    type Cell = { dataset: { label?: string }; textContent: string | null; getBoundingClientRect(): { right: number } };
    const view = globalThis as unknown as { innerWidth: number; document: { querySelectorAll(selector: string): ArrayLike<Cell> } };
    return Array.from(view.document.querySelectorAll('main table tbody td, main table tbody th'))
      .filter((cell) => cell.getBoundingClientRect().right > view.innerWidth + 0.5)
      .map((cell) => `${cell.dataset.label ?? '?'}: ${(cell.textContent ?? '').trim().slice(0, 40)}`);
  });
}

/** A new viewport width (900 px high), once the page has laid itself out again: charts redraw on the next frames. */
export async function resizePage(page: Page, width: number): Promise<void> {
  await page.setViewportSize({ width, height: 900 });
  await page.evaluate(() => {
    const frames = globalThis as unknown as { requestAnimationFrame(callback: () => void): number };
    return new Promise<void>((resolve) => frames.requestAnimationFrame(() => frames.requestAnimationFrame(resolve)));
  });
}

/** The dashboard in a fresh headless Chromium, as every browser suite drives it. */
export interface Dashboard {
  page: Page;
  /** What went wrong in the page since the last `expectNoTrouble`; a step that expects an error clears it. */
  trouble: PageTrouble;
  /** Follows a link of the main navigation. */
  navigateTo(name: string): Promise<void>;
  /** No serious or critical axe violation on the page as it is now. */
  expectAccessible(): Promise<void>;
  /** No console error and no request off the dashboard's origin (each suite's afterEach). */
  expectNoTrouble(): void;
  close(): Promise<void>;
}

/** Opens the API's dashboard in Chromium, watched for trouble; signed in with `token` when given (on the Overview). */
export async function openDashboard(baseUrl: string, token?: string): Promise<Dashboard> {
  const { browser, close } = await launchChromium();
  const page = await browser.newPage();
  const trouble = watchPage(page, new URL(baseUrl).origin);
  if (token !== undefined) {
    await signIn(page, `${baseUrl}/dashboard/`, token);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  }
  return {
    page,
    trouble,
    navigateTo: (name) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click(),
    expectAccessible: async () => expect(await seriousAccessibilityViolations(page)).toEqual([]),
    expectNoTrouble: () => {
      expect(trouble.consoleErrors).toEqual([]);
      expect(trouble.foreignRequests).toEqual([]);
    },
    close,
  };
}

/**
 * The hooks of every browser suite: after each test, no trouble in the page; after all, the browser
 * closed, then `closeMore` (a receiver…), the API process and the suite's database. Call it in the describe block.
 */
export function browserSuiteHooks(state: () => { dashboard?: Dashboard; api?: RunningProcess; suite?: TestSuite }, closeMore?: () => Promise<void>): void {
  afterEach(() => state().dashboard?.expectNoTrouble());
  afterAll(async () => {
    const { dashboard, api, suite } = state();
    await dashboard?.close();
    await closeMore?.();
    await api?.stop();
    await suite?.destroy();
  });
}
