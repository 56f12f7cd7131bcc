import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium (scripts/chromium.sh installs it); never a Playwright-downloaded build. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** One headless Chromium per test file: launch in test.before, close in test.after.always. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // Chromium refuses its sandbox as root (CI containers); tests only visit our loopback app.
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
}
