import test from 'ava';
import { recomputeCompanyKeys } from '../../src/db/migrations/021-company-identity.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';

/** Migration 021 on listings stored under the old rule (the ICANN section only, IPs without port). */

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(async () => {
  await env?.close();
});

test('stored company keys are recomputed: private-suffix sites and IP ports split, the rest stay', async (t) => {
  const db = env.services.db;
  const site = await db('sites').where({ key: 'main' }).first('id');
  const stored: [string, string][] = [
    ['https://acme.vercel.app/', 'vercel.app'],
    ['https://zeta.vercel.app/', 'vercel.app'],
    ['https://www.a.github.io/', 'github.io'],
    ['http://127.0.0.1:4001/', '127.0.0.1'],
    ['http://127.0.0.1:4002/', '127.0.0.1'],
    ['https://www.acme.co.uk/', 'acme.co.uk'],
  ];
  const ids: number[] = [];
  for (const [n, [url, key]] of stored.entries()) {
    const [{ id }] = await db('listings')
      .insert({ site_id: site!.id, slug: `migrated-${n}`, company_domain: key, name: `Migrated ${n}`, url })
      .returning('id');
    ids.push(id);
  }
  t.is(await recomputeCompanyKeys(db), 5);
  const keys = await db('listings').whereIn('id', ids).orderBy('id').pluck('company_domain');
  t.deepEqual(keys, ['acme.vercel.app', 'zeta.vercel.app', 'a.github.io', '127.0.0.1:4001', '127.0.0.1:4002', 'acme.co.uk']);
  t.is(await recomputeCompanyKeys(db), 0, 'a second run changes nothing');
  const indexes = await db.raw(`SELECT indexname FROM pg_indexes WHERE tablename = 'listings' AND indexname = 'listings_company_site'`);
  t.is(indexes.rows.length, 1, 'the migration ran in the template database');
});
