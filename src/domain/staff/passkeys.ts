import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransportFuture,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Db } from '../../db/knex.ts';
import { badRequest } from '../../errors/errors.ts';

/**
 * Staff passkeys (WebAuthn) as a second factor beside TOTP (docs/decisions/staff-second-factor.md).
 * Each ceremony gets a challenge kept server-side for the web session that asked, for
 * CHALLENGE_TTL_MS, and deleted by the first answer whatever its outcome: a response works once.
 */

/** The relying party: our host (rpID) and our origin as the service knows it (BASE_URL). */
export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

export const CHALLENGE_TTL_MS = 5 * 60_000;
export const PASSKEY_NAME_MAX = 60;
type Purpose = 'register' | 'authenticate';

export interface Passkey {
  id: number;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface Ceremony {
  db: Db;
  rp: RelyingParty;
  userId: number;
  sessionIdHash: string;
  now: Date;
}

/** Nothing is stored and the session stays as it was; the message says what to do. */
const refused = (why: string) => badRequest('passkey_refused', why);

export async function listPasskeys(db: Db, userId: number): Promise<Passkey[]> {
  const rows = await db('staff_passkeys').where({ user_id: userId }).orderBy('id').select('id', 'name', 'created_at', 'last_used_at');
  return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at, lastUsedAt: r.last_used_at }));
}

export async function removePasskey(db: Db, userId: number, id: number): Promise<boolean> {
  return (await db('staff_passkeys').where({ user_id: userId, id }).delete()) > 0;
}

async function keepChallenge(c: Ceremony, purpose: Purpose, challenge: string): Promise<void> {
  await c
    .db('staff_webauthn_challenges')
    .insert({ session_id_hash: c.sessionIdHash, purpose, challenge, expires_at: new Date(c.now.getTime() + CHALLENGE_TTL_MS) })
    .onConflict(['session_id_hash', 'purpose'])
    .merge();
}

/** The session's challenge for this ceremony, deleted as it is read (single use); null when none is live. */
async function takeChallenge(c: Ceremony, purpose: Purpose): Promise<string | null> {
  const [row] = await c.db('staff_webauthn_challenges').where({ session_id_hash: c.sessionIdHash, purpose }).delete().returning('*');
  return row && row.expires_at.getTime() > c.now.getTime() ? row.challenge : null;
}

/** Options for navigator.credentials.create(); the person's passkeys are excluded (no double registration). */
export async function registrationOptions(c: Ceremony, userName: string): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await c.db('staff_passkeys').where({ user_id: c.userId }).select('credential_id', 'transports');
  const options = await generateRegistrationOptions({
    rpName: c.rp.name,
    rpID: c.rp.id,
    userName,
    userID: new TextEncoder().encode(`staff-${c.userId}`),
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: p.transports as AuthenticatorTransportFuture[] })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    timeout: CHALLENGE_TTL_MS,
  });
  await keepChallenge(c, 'register', options.challenge);
  return options;
}

/** Verifies the browser's answer to registrationOptions and stores the passkey under `name`. */
export async function registerPasskey(c: Ceremony, name: string, response: unknown): Promise<Passkey> {
  const label = name.trim();
  if (!label || label.length > PASSKEY_NAME_MAX) refusedName();
  const challenge = await takeChallenge(c, 'register');
  if (!challenge) throw refused('This passkey request has expired or was used already. Press "Add a passkey" again.');
  const verified = await verifyRegistrationResponse({
    response: credentialJson(response) as unknown as RegistrationResponseJSON,
    expectedChallenge: challenge,
    expectedOrigin: c.rp.origin,
    expectedRPID: c.rp.id,
    requireUserVerification: false,
  }).catch((err: unknown) => {
    throw refused(`The passkey's answer was refused (${(err as Error).message}). Try again.`);
  });
  if (!verified.verified) throw refused('The passkey could not be verified. Try again.');
  const { credential } = verified.registrationInfo;
  const [row] = await c
    .db('staff_passkeys')
    .insert({
      user_id: c.userId,
      credential_id: credential.id,
      public_key: Buffer.from(credential.publicKey),
      counter: credential.counter,
      transports: credential.transports ?? [],
      name: label,
      created_at: c.now,
    })
    .onConflict('credential_id')
    .ignore()
    .returning(['id', 'name', 'created_at']);
  if (!row) throw refused('This passkey is registered already.');
  return { id: row.id, name: row.name, createdAt: row.created_at, lastUsedAt: null };
}

function refusedName(): never {
  throw refused(`Give the passkey a name of 1 to ${PASSKEY_NAME_MAX} characters, such as "Work laptop".`);
}

/** Options for navigator.credentials.get(), allowing this person's passkeys only; null when they have none. */
export async function authenticationOptions(c: Ceremony): Promise<PublicKeyCredentialRequestOptionsJSON | null> {
  const keys = await c.db('staff_passkeys').where({ user_id: c.userId }).select('credential_id', 'transports');
  if (!keys.length) return null;
  const options = await generateAuthenticationOptions({
    rpID: c.rp.id,
    allowCredentials: keys.map((p) => ({ id: p.credential_id, transports: p.transports as AuthenticatorTransportFuture[] })),
    userVerification: 'preferred',
    timeout: CHALLENGE_TTL_MS,
  });
  await keepChallenge(c, 'authenticate', options.challenge);
  return options;
}

/**
 * Verifies the browser's answer to authenticationOptions with one of this person's passkeys: the
 * session's challenge (once), our origin and host, the signature, and a signature counter that
 * moved forward (a cloned authenticator's, or a replayed answer's, does not). True, or a refusal.
 */
export async function verifyPasskey(c: Ceremony, response: unknown): Promise<true> {
  const answer = credentialJson(response) as unknown as AuthenticationResponseJSON;
  const challenge = await takeChallenge(c, 'authenticate');
  if (!challenge) throw refused('This passkey request has expired or was used already. Press "Use a passkey" again.');
  const key = await c.db('staff_passkeys').where({ user_id: c.userId, credential_id: answer.id }).first();
  if (!key) throw refused('That passkey is not one of yours here. Use another, or a code from your app.');
  const stored = Number(key.counter);
  const verified = await verifyAuthenticationResponse({
    response: answer,
    expectedChallenge: challenge,
    expectedOrigin: c.rp.origin,
    expectedRPID: c.rp.id,
    credential: {
      id: key.credential_id,
      publicKey: new Uint8Array(key.public_key),
      counter: stored,
      transports: key.transports as AuthenticatorTransportFuture[],
    },
    requireUserVerification: false,
  }).catch((err: unknown) => {
    throw refused(`The passkey's answer was refused (${(err as Error).message}). Try again.`);
  });
  if (!verified.verified) throw refused('The passkey could not be verified. Try again.');
  const next = verified.authenticationInfo.newCounter;
  // Conditional, so two answers racing with one counter value cannot both count.
  const moved = await c
    .db('staff_passkeys')
    .where({ id: key.id })
    .where((q) => q.where('counter', '<', next).orWhereRaw('counter = 0 and ?::bigint = 0', [next]))
    .update({ counter: next, last_used_at: c.now });
  if (moved !== 1) throw refused('The passkey answered with an old counter: it may have been copied. Use another factor.');
  return true;
}

/** The parsed shape every WebAuthn answer has; anything else is refused before the library sees it. */
function credentialJson(value: unknown): Record<string, unknown> {
  const v = value as { id?: unknown; rawId?: unknown; type?: unknown; response?: unknown } | null;
  const ok =
    v !== null &&
    typeof v === 'object' &&
    typeof v.id === 'string' &&
    v.id.length <= 1400 &&
    typeof v.rawId === 'string' &&
    v.type === 'public-key' &&
    typeof v.response === 'object' &&
    v.response !== null &&
    typeof (v.response as { clientDataJSON?: unknown }).clientDataJSON === 'string';
  if (!ok) throw refused('The browser sent something that is not a passkey answer. Reload the page and try again.');
  return { clientExtensionResults: {}, ...(v as Record<string, unknown>) };
}
