import { z } from 'zod';

/** Environment variables of "Continue with GitHub / Google"; part of env.ts's schema. See docs/sign-in.md. */
export const SOCIAL_SIGN_IN_ENV = {
  GITHUB_CLIENT_ID: z
    .string()
    .optional()
    .describe('Client ID of the GitHub OAuth app. With GITHUB_CLIENT_SECRET it shows "Continue with GitHub"; unset: no button.'),
  GITHUB_CLIENT_SECRET: z.string().optional().describe('Client secret of the GitHub OAuth app.'),
  GITHUB_WEB_URL: z
    .url()
    .default('https://github.com')
    .describe(
      'Web base URL of GitHub (authorization and token endpoints under /login/oauth/); a GitHub Enterprise Server gives its own. http only on a loopback host outside production.',
    ),
  GITHUB_API_URL: z
    .url()
    .default('https://api.github.com')
    .describe(
      'API base URL of GitHub (GET /user and /user/emails); GitHub Enterprise Server: https://HOST/api/v3. http only on a loopback host outside production.',
    ),
  GOOGLE_CLIENT_ID: z
    .string()
    .optional()
    .describe('OAuth client ID of Google. With GOOGLE_CLIENT_SECRET it shows "Continue with Google"; unset: no button.'),
  GOOGLE_CLIENT_SECRET: z.string().optional().describe('OAuth client secret of Google.'),
  GOOGLE_ISSUER: z
    .url()
    .default('https://accounts.google.com')
    .describe(
      'OpenID Connect issuer of the Google button, discovered from its /.well-known/openid-configuration. http only on a loopback host outside production.',
    ),
};

type SocialEnv = z.output<z.ZodObject<typeof SOCIAL_SIGN_IN_ENV>> & { NODE_ENV?: string | undefined };

export interface GitHubProviderConfig {
  clientId: string;
  clientSecret: string;
  webUrl: string;
  apiUrl: string;
}

export interface GoogleProviderConfig {
  clientId: string;
  clientSecret: string;
  issuer: string;
}

/** The providers of this deployment; a provider without client id and secret is null (no button). */
export interface SocialSignInConfig {
  github: GitHubProviderConfig | null;
  google: GoogleProviderConfig | null;
}

const LOOPBACK = /^(localhost|.+\.localhost|127(\.\d{1,3}){3}|::1)$/;

/**
 * Refuses a plain-http endpoint unless its host is this machine and the service is not in
 * production: a test or a developer runs a provider beside the service, nobody else can.
 */
function endpoint(name: string, value: string, production: boolean): string {
  const url = new URL(value);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (url.protocol === 'http:' && (production || !LOOPBACK.test(host))) {
    const why = production ? 'NODE_ENV is production' : `${host} is not a loopback host`;
    throw new Error(
      `Invalid environment:\n  ${name}: "${value}" is plain http, which is accepted only on a loopback host outside production (${why}); use https`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`Invalid environment:\n  ${name}: must be an https URL`);
  return value.replace(/\/+$/, '');
}

function pair(idName: string, id: string | undefined, secret: string | undefined): { clientId: string; clientSecret: string } | null {
  if (!id && !secret) return null;
  if (!id || !secret)
    throw new Error(
      `Invalid environment:\n  ${idName.replace('_ID', '_SECRET')}: set both ${idName} and ${idName.replace('_ID', '_SECRET')}, or neither`,
    );
  return { clientId: id, clientSecret: secret };
}

export function socialSignInConfig(e: SocialEnv): SocialSignInConfig {
  const production = e.NODE_ENV === 'production';
  // Checked whether or not the provider is on: a refused URL should not wait for its credentials to fail.
  const webUrl = endpoint('GITHUB_WEB_URL', e.GITHUB_WEB_URL, production);
  const apiUrl = endpoint('GITHUB_API_URL', e.GITHUB_API_URL, production);
  const issuer = endpoint('GOOGLE_ISSUER', e.GOOGLE_ISSUER, production);
  const github = pair('GITHUB_CLIENT_ID', e.GITHUB_CLIENT_ID, e.GITHUB_CLIENT_SECRET);
  const google = pair('GOOGLE_CLIENT_ID', e.GOOGLE_CLIENT_ID, e.GOOGLE_CLIENT_SECRET);
  return {
    github: github && { ...github, webUrl, apiUrl },
    google: google && { ...google, issuer },
  };
}
