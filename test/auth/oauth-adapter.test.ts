import test from 'ava';
import { postgresAdapter, purgeExpiredOAuthRows } from '../../src/auth/oauth/pg-adapter.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(async () => {
  await env?.close();
});

test('rows are found by id, uid and user code until they expire; expired rows are purged', async (t) => {
  const Adapter = postgresAdapter(env.services.db);
  const sessions = new Adapter('Session');
  await sessions.upsert('s1', { uid: 'u1', accountId: '7' } as never, 60);
  await sessions.upsert('s2', { uid: 'u2' } as never, 60);
  t.like(await sessions.find('s1'), { accountId: '7' });
  t.like(await sessions.findByUid('u1'), { accountId: '7' });
  t.is(await new Adapter('Grant').find('s1'), undefined, 'models do not share ids');

  await env.services
    .db('oauth_payloads')
    .where({ id: 's2' })
    .update({ expires_at: new Date(Date.now() - 1000) });
  t.is(await sessions.find('s2'), undefined);
  t.is(await purgeExpiredOAuthRows(env.services.db), 1);
  t.is(await env.services.db('oauth_payloads').where({ id: 's2' }).first(), undefined);
  t.truthy(await sessions.find('s1'));
});

test('a consumed code says so; revoking a grant removes its rows and records the revocation', async (t) => {
  const Adapter = postgresAdapter(env.services.db);
  const codes = new Adapter('AuthorizationCode');
  const tokens = new Adapter('RefreshToken');
  await codes.upsert('c1', { grantId: 'g1' } as never, 60);
  await tokens.upsert('r1', { grantId: 'g1' } as never, 600);
  await codes.consume('c1');
  t.true(typeof (await codes.find('c1'))?.consumed === 'number');
  await tokens.revokeByGrantId('g1');
  t.is(await codes.find('c1'), undefined);
  t.is(await tokens.find('r1'), undefined);
  t.truthy(await env.services.db('oauth_revoked_grants').where({ grant_id: 'g1' }).first());
  await codes.upsert('c2', {} as never, 60);
  await codes.destroy('c2');
  t.is(await codes.find('c2'), undefined);
});
