import { generateKeyPairSync, randomBytes, type JsonWebKey } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/config.ts';

/** Signing keys of the authorization server and the keys of its cookies. */
export interface OAuthKeys {
  /** Private EC P-256 JWKs (ES256); the first signs, all verify. */
  signing: JsonWebKey[];
  cookieKeys: string[];
}

const FILE = 'oauth-keys.json';

/**
 * The keys from OAUTH_JWKS / OAUTH_COOKIE_KEYS when set (several machines must share them), else
 * from the data directory, generated there on first start. Never in git.
 */
export function loadOAuthKeys(config: Config): OAuthKeys {
  if (config.oauth.jwks && config.oauth.cookieKeys.length) {
    return { signing: config.oauth.jwks, cookieKeys: config.oauth.cookieKeys };
  }
  const file = path.join(config.dataDir, FILE);
  const stored = readKeys(file) ?? writeNewKeys(file);
  return {
    signing: config.oauth.jwks ?? stored.signing,
    cookieKeys: config.oauth.cookieKeys.length ? config.oauth.cookieKeys : stored.cookieKeys,
  };
}

function readKeys(file: string): OAuthKeys | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as OAuthKeys;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`${file} is unreadable: ${(err as Error).message}`, { cause: err });
  }
}

function writeNewKeys(file: string): OAuthKeys {
  const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  const keys: OAuthKeys = {
    signing: [{ ...jwk, kid: randomBytes(8).toString('hex'), alg: 'ES256', use: 'sig' }],
    cookieKeys: [randomBytes(32).toString('base64url')],
  };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Two processes starting at once: the first file written wins, the other reads it.
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(keys), { mode: 0o600 });
  try {
    fs.linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return readKeys(file)!;
}

/** The public half of a private JWK. */
export function publicJwk({ d: _private, ...rest }: JsonWebKey): JsonWebKey {
  return rest;
}
