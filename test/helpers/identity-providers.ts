import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import Provider from 'oidc-provider';

/**
 * Real identity providers on loopback for the "Continue with GitHub / Google" tests: an OpenID
 * Connect provider (oidc-provider, the library the service runs for its own OAuth) issuing signed
 * ID tokens, and a small GitHub of the endpoints the service calls.
 */

export interface TestPerson {
  sub: string;
  email: string;
  email_verified: boolean;
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Who signs in at the provider's login step from now on. */
  signInAs(person: TestPerson): void;
  close(): Promise<void>;
}

/** An OpenID Connect provider on 127.0.0.1:`port` with one confidential client of the given redirect URI. */
export async function startOidcProvider(port: number, redirectUri: string): Promise<TestOidcProvider> {
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = 'test-google-client';
  const clientSecret = randomBytes(16).toString('hex');
  const people = new Map<string, TestPerson>();
  let current: TestPerson | null = null;
  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    jwks: { keys: [{ ...signingKey, kid: 'test', use: 'sig', alg: 'RS256' }] as never },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    // As Google does: the scope's claims are in the ID token itself.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // Consent is the person's own business at the provider: every authorization is granted.
    loadExistingGrant: async (ctx) => {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
      grant.addOIDCScope('openid email');
      await grant.save();
      return grant;
    },
    findAccount: (_ctx, sub) => {
      const person = people.get(sub);
      return person && { accountId: sub, claims: () => ({ ...person }) };
    },
  });
  const app = provider.callback();
  const server = http.createServer(async (req, res) => {
    const interaction = /^\/interaction\/([^/?]+)/.exec(req.url ?? '');
    if (!interaction) return app(req, res);
    // The provider's login page: the person set by signInAs() signs in at once.
    if (!current) return res.writeHead(500).end('no person to sign in as');
    people.set(current.sub, current);
    await provider.interactionFinished(req, res, { login: { accountId: current.sub } }, { mergeWithLastSubmission: false });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    issuer,
    clientId,
    clientSecret,
    signInAs(person) {
      current = person;
    },
    close: () => closeServer(server),
  };
}

export interface GitHubPerson {
  id: number;
  login: string;
  emails: { email: string; verified: boolean; primary: boolean }[];
}

export interface FakeGitHub {
  webUrl: string;
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  signInAs(person: GitHubPerson): void;
  close(): Promise<void>;
}

/**
 * GitHub's OAuth web flow and the two API calls, as GitHub answers them: authorize redirects back
 * with code and state; a code works once and only with its PKCE verifier and the client's secret
 * (a used one is answered 200 with `error`, as GitHub does); /user and /user/emails need the token.
 */
export async function startFakeGitHub(port: number): Promise<FakeGitHub> {
  const base = `http://127.0.0.1:${port}`;
  const clientId = 'test-github-client';
  const clientSecret = randomBytes(16).toString('hex');
  const codes = new Map<string, { person: GitHubPerson; challenge: string; redirectUri: string }>();
  const tokens = new Map<string, GitHubPerson>();
  let current: GitHubPerson | null = null;
  const json = (res: http.ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
      const q = url.searchParams;
      if (q.get('client_id') !== clientId || !current || q.get('code_challenge_method') !== 'S256')
        return json(res, 400, { error: 'bad request' });
      const code = randomBytes(10).toString('hex');
      codes.set(code, { person: current, challenge: q.get('code_challenge')!, redirectUri: q.get('redirect_uri')! });
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state') ?? '');
      return res.writeHead(302, { location: back.href }).end();
    }
    if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      const form = new URLSearchParams(await readBody(req));
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const { createHash } = await import('node:crypto');
      const verified =
        grant &&
        form.get('client_id') === clientId &&
        form.get('client_secret') === clientSecret &&
        form.get('redirect_uri') === grant.redirectUri &&
        createHash('sha256')
          .update(form.get('code_verifier') ?? '')
          .digest('base64url') === grant.challenge;
      if (!verified)
        return json(res, 200, { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' });
      const token = `gho_${randomBytes(16).toString('hex')}`;
      tokens.set(token, grant.person);
      return json(res, 200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
    }
    const person = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /i, ''));
    if (url.pathname === '/api/user' || url.pathname === '/api/user/emails') {
      if (!person) return json(res, 401, { message: 'Requires authentication' });
      return json(res, 200, url.pathname === '/api/user' ? { id: person.id, login: person.login } : person.emails);
    }
    json(res, 404, { message: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    webUrl: base,
    apiUrl: `${base}/api`,
    clientId,
    clientSecret,
    signInAs(person) {
      current = person;
    },
    close: () => closeServer(server),
  };
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * A browser without a browser: follows redirects across the app and the provider, keeping each
 * origin's cookies, and stops before a URL `stopAt` matches (to hold a callback back).
 */
export class RedirectingClient {
  readonly jars = new Map<string, Map<string, string>>();

  async get(url: string, options: { stopAt?: RegExp; method?: string; form?: Record<string, string> } = {}) {
    let next = new URL(url);
    let method = options.method ?? 'GET';
    let body: URLSearchParams | undefined = options.form ? new URLSearchParams(options.form) : undefined;
    for (let hops = 0; hops < 20; hops++) {
      const res = await fetch(next, { method, body, redirect: 'manual', headers: this.cookieHeader(next) });
      this.keepCookies(next, res);
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location)
        return { url: next, status: res.status, text: await res.text(), stoppedAt: null };
      await res.arrayBuffer();
      next = new URL(location, next);
      if (options.stopAt?.test(next.href)) return { url: next, status: res.status, text: '', stoppedAt: next };
      method = 'GET';
      body = undefined;
    }
    throw new Error('too many redirects');
  }

  post(url: string, form: Record<string, string>, stopAt?: RegExp) {
    return this.get(url, { method: 'POST', form, stopAt });
  }

  private cookieHeader(url: URL): Record<string, string> {
    const jar = this.jars.get(url.origin);
    return jar?.size ? { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } : {};
  }

  private keepCookies(url: URL, res: Response): void {
    const jar = this.jars.get(url.origin) ?? new Map<string, string>();
    this.jars.set(url.origin, jar);
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const name = pair!.slice(0, pair!.indexOf('='));
      const value = pair!.slice(pair!.indexOf('=') + 1);
      if (value === '' || attrs.some((a) => /max-age=0|expires=thu, 01 jan 1970/i.test(a.trim()))) jar.delete(name);
      else jar.set(name, value);
    }
  }
}
