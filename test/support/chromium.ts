import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** Debian's chromium, as CI installs it (.ci/run); Playwright adds its own pipe and profile flags. */
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-quic',
  '--no-first-run',
  '--disable-sync',
];

/** A headless Chromium with a fresh profile; `close` also removes the profile. */
export async function launchChromium(): Promise<{ browser: BrowserContext; close: () => Promise<void> }> {
  if (!existsSync(CHROMIUM)) throw new Error(`The browser suites drive Debian's chromium at ${CHROMIUM}, which this machine lacks: apt-get install chromium (.ci/run installs it)`);
  const userDataDir = mkdtempSync(join(tmpdir(), 'foresight-sdk-chromium-'));
  const browser = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
  return {
    browser,
    close: async () => {
      await browser.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
