import test from 'ava';
import { KEY_CACHE_TTL_MS, authenticateApiKey, createApiKey, createApiKeyCache, revokeApiKey } from '../../src/auth/api-keys.ts';
import { createUser } from '../../src/auth/users.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';

/** Verified API keys are kept in memory briefly; revocation still wins. Serial: a revoke clears the cache another test counts. */
let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const keys = () => env.services.caches.apiKeys;
const newKey = async (email: string) => {
  const user = await createUser(db(), email);
  return { user, ...(await createApiKey(db(), user.id, 'k', ['account:read'])) };
};

test.serial('a key revoked by this process fails at once, though it was just verified', async (t) => {
  const { user, key, view } = await newKey('cached-revoke@example.com');
  t.like(await authenticateApiKey(db(), keys(), key), { userId: user.id, credentialId: `key:${view.id}` });
  t.true(await revokeApiKey(db(), keys(), user.id, view.id));
  t.is(await authenticateApiKey(db(), keys(), key), null);
});

test.serial('a key revoked by another process fails within KEY_CACHE_TTL_MS', async (t) => {
  const { user, key, view } = await newKey('other-process@example.com');
  let ms = 0;
  const cache = createApiKeyCache(() => ms);
  t.like(await authenticateApiKey(db(), cache, key), { userId: user.id });
  // Another api process revokes it: this process only sees the table.
  await db()('api_keys').where({ id: view.id }).update({ revoked_at: db().fn.now() });
  ms += KEY_CACHE_TTL_MS - 1;
  t.like(await authenticateApiKey(db(), cache, key), { userId: user.id }, 'still the kept answer within the TTL');
  ms += 1;
  t.is(await authenticateApiKey(db(), cache, key), null);
});

test.serial('guessed keys are not kept in memory; last use is still recorded', async (t) => {
  const { key, view } = await newKey('unknown-keys@example.com');
  t.truthy(await authenticateApiKey(db(), keys(), key));
  const cache = keys();
  const before = cache.size;
  for (let i = 0; i < 50; i++) t.is(await authenticateApiKey(db(), keys(), `${key.slice(0, -4)}${String(i).padStart(4, '0')}`), null);
  t.is(cache.size, before);
  t.truthy((await db()('api_keys').where({ id: view.id }).first('last_used_at'))!.last_used_at);
});
