import { createHash, randomBytes } from 'node:crypto';
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { request, type TestEnv } from './env.ts';

/** Where the test client says it listens; the browser's request there is caught, never sent. */
export const CALLBACK_URL = 'http://127.0.0.1:47999/callback';

/**
 * An MCP client's OAuth state kept in memory, as a desktop agent would keep it: registration,
 * PKCE verifier, tokens. The authorization URL the SDK wants opened is recorded for the browser.
 */
export class MemoryOAuthClient implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  #client: StoredOAuthClientInformation | undefined;
  #tokens: StoredOAuthTokens | undefined;
  #verifier = '';
  #discovery: unknown;
  readonly #metadata: OAuthClientMetadata;

  constructor(name = 'Test Agent') {
    this.#metadata = {
      client_name: name,
      redirect_uris: [CALLBACK_URL],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  get redirectUrl() {
    return CALLBACK_URL;
  }
  get clientMetadata() {
    return this.#metadata;
  }
  clientInformation() {
    return this.#client;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.#client = info;
  }
  tokens() {
    return this.#tokens;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.#tokens = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier;
  }
  saveDiscoveryState(state: unknown) {
    this.#discovery = state;
  }
  discoveryState() {
    return this.#discovery as never;
  }
}

/**
 * Opens the authorization URL in the browser, signs in on our page when asked, answers the
 * consent page and returns the callback URL the browser was sent to, plus the consent page text.
 * When `options.callback` names a real server, the browser also waits until its page is loaded.
 */
export async function authorizeInBrowser(
  browser: Browser,
  authorizationUrl: URL,
  account: { email: string; password: string },
  decision: 'Allow' | 'Deny' = 'Allow',
  options: { callback?: string } = {},
): Promise<{ callback: URL; consentText: string }> {
  const callbackUrl = options.callback ?? CALLBACK_URL;
  const context = await browser.newContext();
  const page = await context.newPage();
  if (process.env.DEBUG_BROWSER) {
    page.on('console', (m) => console.log('browser console:', m.text()));
    page.on('response', (r) => console.log('browser response:', r.request().method(), r.url(), r.status(), r.headers()['location'] ?? ''));
  }
  try {
    await page.goto(authorizationUrl.toString());
    if (await page.getByRole('button', { name: 'Sign in' }).isVisible()) {
      await page.getByLabel('Email address').fill(account.email);
      await page.getByLabel('Password').fill(account.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
    }
    await page.getByRole('button', { name: decision }).waitFor();
    const consentText = await page.locator('main').innerText();
    // The browser's request for the callback is what the app receives; with no server behind the
    // default callback it then shows a connection error, which changes nothing here. (A route
    // cannot answer it: Playwright does not route the target of a redirect.)
    const [request] = await Promise.all([
      page
        .waitForRequest((r) => r.isNavigationRequest() && r.url().startsWith(callbackUrl), { timeout: 10_000 })
        .catch(async (err: Error) => {
          throw new Error(
            `${err.message}\nstopped at ${page.url()}: ${await page
              .locator('body')
              .innerText()
              .catch(() => '')}`,
          );
        }),
      page.getByRole('button', { name: decision }).click(),
    ]);
    const callback = new URL(request.url());
    if (options.callback) await page.waitForURL(`${callbackUrl}**`, { timeout: 10_000 });
    return { callback, consentText };
  } finally {
    await context.close();
  }
}

/**
 * An app connected to `account` the way a person does it: dynamic registration, the browser's
 * sign-in and Allow, then the code exchanged with PKCE. Returns the client id and its tokens.
 */
export async function connectApp(
  env: Pick<TestEnv, 'baseUrl'>,
  browser: Browser,
  account: { email: string; password: string },
  resource = `${env.baseUrl}/mcp`,
): Promise<{ clientId: string; accessToken: string; refreshToken: string }> {
  const registered = await request(env, 'POST', '/oauth/register', {
    body: {
      client_name: 'Connected App',
      redirect_uris: [CALLBACK_URL],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    },
  });
  if (registered.status !== 201) throw new Error(`registration failed: ${JSON.stringify(registered.body)}`);
  const clientId = registered.body.client_id as string;
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${env.baseUrl}/oauth/authorize`);
  const params = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: CALLBACK_URL,
    scope: 'account:read',
    resource,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  const { callback } = await authorizeInBrowser(browser, url, account);
  const form = {
    grant_type: 'authorization_code',
    client_id: clientId,
    code: callback.searchParams.get('code') ?? '',
    redirect_uri: CALLBACK_URL,
    code_verifier: verifier,
    resource,
  };
  const issued = await request(env, 'POST', '/oauth/token', {
    body: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  if (issued.status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(issued.body)}`);
  return { clientId, accessToken: issued.body.access_token, refreshToken: issued.body.refresh_token };
}
