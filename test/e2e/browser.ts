/**
 * The system Chromium the browser tests drive (never downloaded: `apt-get install -y chromium`).
 *
 * CHROMIUM_PATH or /usr/bin/chromium. Missing => the importing suite throws when REQUIRE_BROWSER=1 (CI), else it is
 * skipped with a loud message naming what to install.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env['CHROMIUM_PATH'] || '/usr/bin/chromium';
const REQUIRE_BROWSER = process.env['REQUIRE_BROWSER'] === '1';
const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

/** Whether the suite can run; throws under REQUIRE_BROWSER=1 when Chromium is missing, warns otherwise. */
export function isBrowserAvailable(suite: string): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (REQUIRE_BROWSER) {
    throw new Error(
      `REQUIRE_BROWSER=1 but Chromium was not found at ${CHROMIUM}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`,
    );
  }
  console.warn(
    `\n!!!!! ${suite} SKIPPED: Chromium not found at ${CHROMIUM}. Install it (apt-get install -y chromium) or set CHROMIUM_PATH; ` +
      'CI sets REQUIRE_BROWSER=1 so a missing browser fails there. !!!!!\n',
  );
  return false;
}

/** Launches the system Chromium headless. */
export function launchChromium(): Promise<Browser> {
  // Every launch gets a fresh temporary user-data-dir (removed on close).
  return chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS, timeout: 30_000 });
}
