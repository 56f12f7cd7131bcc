import test from 'ava';
import { readLaunchSettings } from '../../src/domain/launches/launch-settings.ts';
import { readSeller } from '../../src/domain/sites/seller.ts';
import { admin, adminInProcess } from '../helpers/admin.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';

// sites:set --seller-* as an operator runs it (a real process for the first run and one refusal,
// the other cases in this process): what invoices name as the seller.

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const siteId = async (key: string) => (await db()('sites').where({ key }).first('id'))!.id as number;

test.serial('sites:set sets the seller’s legal name, address and VAT ID, and changes nothing else', async (t) => {
  const id = await siteId('main');
  const launch = await readLaunchSettings(db(), id);
  const res = await admin(
    env,
    'sites:set',
    '--site',
    'main',
    '--seller-name',
    '  Listing Directory Ltd ',
    '--seller-address',
    '1 Main Street, Dublin 2, D02 XY45',
    '--seller-vat-id',
    'ie 6388047v',
  );
  t.is(res.code, 0, res.stderr);
  t.regex(res.stdout, /seller_name="Listing Directory Ltd" seller_address="1 Main Street, Dublin 2, D02 XY45" seller_vat_id="IE6388047V"/);
  t.deepEqual(await readSeller(db(), id), {
    seller_name: 'Listing Directory Ltd',
    seller_address: '1 Main Street, Dublin 2, D02 XY45',
    seller_vat_id: 'IE6388047V',
    seller_country: 'IE',
  });
  t.deepEqual(await readLaunchSettings(db(), id), launch);

  // One flag alone changes that detail only; an empty value clears it.
  t.is((await adminInProcess(env, 'sites:set', '--site', 'main', '--seller-address', '')).code, 0);
  t.like(await readSeller(db(), id), { seller_name: 'Listing Directory Ltd', seller_address: null, seller_vat_id: 'IE6388047V' });
});

test.serial('bad seller details exit non-zero with the reason and write nothing', async (t) => {
  const id = await siteId('makers');
  const before = await db()('sites').where({ id }).first('settings');
  const bad: [string[], RegExp][] = [
    [['sites:set', '--site', 'makers', '--seller-vat-id', 'IE6388047X'], /seller’s VAT ID.*(checksum|format)/],
    [['sites:set', '--site', 'makers', '--seller-vat-id', 'FR40303265045'], /seller’s VAT ID.*FR.*seller country is IE/],
    [['sites:set', '--site', 'makers', '--seller-name', 'n'.repeat(201)], /seller’s name has at most 200/],
    [['sites:set', '--site', 'nowhere', '--seller-name', 'Nobody Ltd'], /nowhere/],
    [['sites:set', '--seller-name', 'No Site Ltd'], /--site is required/],
    // A bad launch setting beside a good seller detail: neither is written.
    [['sites:set', '--site', 'makers', '--seller-name', 'Makers Ltd', '--free-slots', '-1'], /--free-slots/],
  ];
  // One refusal through main.ts as well: exit code 1, the reason, no stack trace.
  const [real, ...results] = await Promise.all([
    admin(env, 'sites:set', '--site', 'nowhere', '--seller-name', 'Nobody Ltd'),
    ...bad.map(([args]) => adminInProcess(env, ...args)),
  ]);
  t.is(real!.code, 1);
  t.regex(real!.stderr, /nowhere/);
  t.false(real!.stderr.includes('    at '), 'no stack trace through main.ts');
  results.forEach((res, i) => {
    const [args, reason] = bad[i]!;
    t.is(res.code, 1, args.join(' '));
    t.regex(res.stderr, reason, args.join(' '));
    t.false(res.stderr.includes('    at '), `no stack trace for ${args.join(' ')}`);
  });
  t.deepEqual(await db()('sites').where({ id }).first('settings'), before);
});

test.serial('sites:set --short-week-hours sets the share of a week below which placements start next week', async (t) => {
  const res = await adminInProcess(env, 'sites:set', '--site', 'makers', '--short-week-hours', '48');
  t.is(res.code, 0, res.stderr);
  t.regex(res.stdout, /short_week_hours=48/);
  t.is((await readLaunchSettings(db(), await siteId('makers'))).short_week_hours, 48);
  for (const bad of ['168', '2.5', 'three']) {
    const refused = await adminInProcess(env, 'sites:set', '--site', 'makers', '--short-week-hours', bad);
    t.is(refused.code, 1, bad);
    t.regex(refused.stderr, /--short-week-hours must be a whole number from 0 to 167/);
  }
  t.is((await readLaunchSettings(db(), await siteId('makers'))).short_week_hours, 48);
});
