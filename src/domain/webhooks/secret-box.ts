import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { AppSecrets } from '../../auth/secrets.ts';

/**
 * Endpoint signing secrets are kept encrypted, not hashed: every delivery signs with the secret
 * itself (HMAC). AES-256-GCM under the app secret `webhook-secrets` (src/auth/secrets.ts, shared
 * through PostgreSQL): a copy of the webhook tables alone does not reveal them.
 */
const KEY_NAME = 'webhook-secrets';

/** The process's app secrets (built once by createServices), from which the key is read. */
const key = (secrets: AppSecrets) => secrets.get(KEY_NAME);

/** A new `whsec_…` secret (24 random bytes, base64), the form Standard Webhooks libraries read. */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/** iv (12) | tag (16) | ciphertext */
export async function sealSecret(secrets: AppSecrets, secret: string): Promise<Buffer> {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', await key(secrets), iv);
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

export async function openSecret(secrets: AppSecrets, box: Buffer): Promise<string> {
  const decipher = createDecipheriv('aes-256-gcm', await key(secrets), box.subarray(0, 12));
  decipher.setAuthTag(box.subarray(12, 28));
  return Buffer.concat([decipher.update(box.subarray(28)), decipher.final()]).toString('utf8');
}
