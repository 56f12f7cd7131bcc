import { chromium, type Browser, type BrowserServer, type Page } from 'playwright-core';
import { startTestEnv, type TestEnv } from './env.ts';

/** Debian's chromium (scripts/chromium.sh installs it); never a Playwright-downloaded build. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const LAUNCH_OPTIONS = {
  executablePath: CHROMIUM_PATH,
  headless: true,
  // Chromium refuses its sandbox as root (CI containers); tests only visit our loopback app.
  args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
};

/**
 * The run's one headless Chromium, launched by the harness (test/harness.ts), which names it in
 * TEST_BROWSER_WS. A file connects to it instead of launching its own (about 0.6 s of CPU per
 * launch); its pages live in contexts of its own, which `close()` (in test.after.always) ends
 * along with the connection. Run without the harness, a file launches its own Chromium.
 */
export async function launchBrowser(): Promise<Browser> {
  const shared = process.env.TEST_BROWSER_WS;
  return shared ? chromium.connect(shared) : chromium.launch(LAUNCH_OPTIONS);
}

/** For the harness: the Chromium the browser test files of a run share (launchBrowser). */
export function launchBrowserServer(): Promise<BrowserServer> {
  return chromium.launchServer(LAUNCH_OPTIONS);
}

/** The app (startTestEnv) plus one headless Chromium, for a browser test file; `close` ends both. */
export async function startBrowserTestEnv(
  testFile: string,
  vars: Record<string, string> = {},
): Promise<{ env: TestEnv; browser: Browser; close(): Promise<void> }> {
  const env = await startTestEnv(testFile, vars);
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
