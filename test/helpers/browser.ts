import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestEnv, type TestEnv } from './env.ts';

/**
 * Debian's chromium-headless-shell (scripts/chromium.sh installs it and says why the shell); never
 * a Playwright-downloaded build. CHROMIUM_PATH may name another Chromium binary.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';

/** One headless Chromium per test file: launch in test.before, close in test.after.always. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // Chromium refuses its sandbox as root (CI containers); tests only visit our loopback app.
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
}

/** The app (startTestEnv) plus one headless Chromium, for a browser test file; `close` ends both. */
export async function startBrowserTestEnv(
  testFile: string,
  vars: Record<string, string> = {},
  options: Parameters<typeof startTestEnv>[2] = {},
): Promise<{ env: TestEnv; browser: Browser; close(): Promise<void> }> {
  const env = await startTestEnv(testFile, vars, options);
  const browser = await launchBrowser().catch(async (err: unknown) => {
    await env.close();
    throw err;
  });
  return {
    env,
    browser,
    async close() {
      await browser.close();
      await env.close();
    },
  };
}

/** Signs in through the sign-in form, as a person does, and waits for the account page it leads to. */
export async function signInOnPage(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/signin');
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/account$/);
}

/** Whether the page fits the window's width (no sideways scrolling, e.g. at 390 px). */
export const fitsWidth = (page: Page): Promise<boolean> => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
