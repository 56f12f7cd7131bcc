import test from 'ava';
import { loadConfig } from '../src/config/config.ts';

const GOOGLE = { GOOGLE_CLIENT_ID: 'id', GOOGLE_CLIENT_SECRET: 'secret' };
const GITHUB = { GITHUB_CLIENT_ID: 'id', GITHUB_CLIENT_SECRET: 'secret' };

test('without client id and secret a provider is off; with them the public endpoints are the defaults', (t) => {
  t.deepEqual(loadConfig({}).socialSignIn, { github: null, google: null });
  const both = loadConfig({ ...GOOGLE, ...GITHUB }).socialSignIn;
  t.is(both.google?.issuer, 'https://accounts.google.com');
  t.is(both.github?.webUrl, 'https://github.com');
  t.is(both.github?.apiUrl, 'https://api.github.com');
  // GitHub Enterprise Server: its own web and API bases.
  const ghes = loadConfig({ ...GITHUB, GITHUB_WEB_URL: 'https://git.example.com/', GITHUB_API_URL: 'https://git.example.com/api/v3' });
  t.is(ghes.socialSignIn.github?.webUrl, 'https://git.example.com');
  t.is(ghes.socialSignIn.github?.apiUrl, 'https://git.example.com/api/v3');
});

test('a client id without its secret is refused, naming both', (t) => {
  t.throws(() => loadConfig({ GOOGLE_CLIENT_ID: 'id' }), {
    message: /GOOGLE_CLIENT_SECRET: set both GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET/,
  });
  t.throws(() => loadConfig({ GITHUB_CLIENT_SECRET: 's' }), { message: /set both GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET/ });
});

test('a plain-http issuer or base URL is accepted only on a loopback host outside production', (t) => {
  t.is(loadConfig({ ...GOOGLE, GOOGLE_ISSUER: 'http://127.0.0.1:4000' }).socialSignIn.google?.issuer, 'http://127.0.0.1:4000');
  t.is(loadConfig({ ...GITHUB, GITHUB_WEB_URL: 'http://localhost:4001' }).socialSignIn.github?.webUrl, 'http://localhost:4001');
  t.is(loadConfig({ ...GITHUB, GITHUB_API_URL: 'http://[::1]:4002' }).socialSignIn.github?.apiUrl, 'http://[::1]:4002');

  t.throws(() => loadConfig({ ...GOOGLE, GOOGLE_ISSUER: 'http://accounts.example.com' }), {
    message:
      /GOOGLE_ISSUER: "http:\/\/accounts.example.com" is plain http, which is accepted only on a loopback host outside production \(accounts.example.com is not a loopback host\); use https/,
  });
  t.throws(() => loadConfig({ ...GITHUB, GITHUB_API_URL: 'http://10.0.0.5/api/v3' }), {
    message: /GITHUB_API_URL: .*\(10.0.0.5 is not a loopback host\)/,
  });
  t.throws(() => loadConfig({ ...GOOGLE, NODE_ENV: 'production', GOOGLE_ISSUER: 'http://127.0.0.1:4000' }), {
    message: /GOOGLE_ISSUER: .*plain http.*\(NODE_ENV is production\)/,
  });
  t.throws(() => loadConfig({ ...GITHUB, NODE_ENV: 'production', GITHUB_WEB_URL: 'http://localhost:4001' }), { message: /GITHUB_WEB_URL/ });
  // Refused also while the provider is off: it would fail only once its credentials are set.
  t.throws(() => loadConfig({ GOOGLE_ISSUER: 'http://accounts.example.com' }), { message: /GOOGLE_ISSUER/ });
});
