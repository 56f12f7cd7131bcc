import test from 'ava';
import { admin, adminInProcess } from '../helpers/admin.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { voteCounts, voters } from '../helpers/votes.ts';
import { WebClient } from '../helpers/web.ts';

/**
 * `votes:void`: removing fraudulent votes, shown publicly on the listing page with the reasons. The
 * first run and one bad run go through main.ts (a real process); the rest run in this process.
 */

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const db = () => env.services.db;

/** A live listing with `count` votes cast on its page by new accounts. */
async function votedListing(name: string, count: number) {
  const id = await insertLiveListing(db(), { name, url: `https://${name.toLowerCase().replace(/\W+/g, '')}.example.com/` });
  const { slug } = (await db()('listings').where({ id }).first('slug'))!;
  const crowd = await voters(db(), env.baseUrl, count);
  for (const v of crowd) {
    const page = await v.client.get(`/listings/${slug}`);
    const _csrf = page.$(`form[action="/listings/${slug}/vote"] input[name=_csrf]`).val() as string;
    const res = await v.client.post(`/listings/${slug}/vote`, { _csrf });
    if (res.status !== 303) throw new Error(`vote answered ${res.status}`);
  }
  return { id, slug: slug as string, crowd };
}

test('void one account’s vote, then all others; the listing page shows the count per reason', async (t) => {
  const { id, slug, crowd } = await votedListing('Fraud Target', 4);
  const one = await admin(env, 'votes:void', '--listing', String(id), '--reason', 'Purchased votes', '--user', String(crowd[0]!.id));
  t.is(one.code, 0, one.stderr);
  t.regex(one.stdout, new RegExp(`removed 1 vote of user ${crowd[0]!.id} from listing ${id}; it has 3 counted now`));
  t.deepEqual(await voteCounts(db(), id), { votes: 3, week_votes: 3, rows: 3 });

  // By email address; a second run finds nothing left to remove.
  const byEmail = await adminInProcess(
    env,
    'votes:void',
    '--listing',
    String(id),
    '--reason',
    'Purchased votes',
    '--user',
    crowd[1]!.email.toUpperCase(),
  );
  t.regex(byEmail.stdout, /removed 1 vote of user/);
  const repeat = await adminInProcess(
    env,
    'votes:void',
    '--listing',
    String(id),
    '--reason',
    'Purchased votes',
    '--user',
    String(crowd[1]!.id),
  );
  t.regex(repeat.stdout, /removed 0 votes/);

  const all = await adminInProcess(env, 'votes:void', '--listing', String(id), '--reason', 'Vote ring <b>x</b>');
  t.is(all.code, 0, all.stderr);
  t.regex(all.stdout, /removed 2 votes from listing \d+; it has 0 counted now/);
  t.deepEqual(await voteCounts(db(), id), { votes: 0, week_votes: 0, rows: 0 });

  const page = await new WebClient(env.baseUrl).get(`/listings/${slug}`);
  t.is(page.$('[data-votes]').text(), '0');
  t.is(page.$('[data-votes-removed]').text(), '4');
  t.deepEqual(
    page
      .$('.removed-votes li')
      .map((_, li) => page.$(li).text())
      .get(),
    ['2 × Purchased votes', '2 × Vote ring <b>x</b>'],
  );
  t.false(page.text.includes('<b>x</b>'));
  // Leaderboard and weekly close see the removed votes of the launch week.
  t.is(
    await db()('voided_votes')
      .where({ listing_id: id, in_launch_week: true })
      .count({ count: '*' })
      .then(([r]) => Number(r!.count)),
    4,
  );
});

test('an account whose vote was voided cannot vote on that listing again', async (t) => {
  const { id, slug, crowd } = await votedListing('No Second Chance', 1);
  await adminInProcess(env, 'votes:void', '--listing', String(id), '--reason', 'Sock puppet', '--user', String(crowd[0]!.id));
  const page = await crowd[0]!.client.get(`/listings/${slug}`);
  const _csrf = page.$(`form[action="/listings/${slug}/vote"] input[name=_csrf]`).val() as string;
  const again = await crowd[0]!.client.post(`/listings/${slug}/vote`, { _csrf });
  t.is(again.status, 422);
  t.regex(again.$('main').text(), /removed by the site team/);
  t.deepEqual(await voteCounts(db(), id), { votes: 0, week_votes: 0, rows: 0 });
});

test('bad votes:void input exits 1 with a message and removes nothing', async (t) => {
  const { id, crowd } = await votedListing('Bad Input', 2);
  const cases = [
    ['votes:void'],
    ['votes:void', '--reason', 'x'],
    ['votes:void', '--listing', 'abc', '--reason', 'x'],
    ['votes:void', '--listing', '99999999999', '--reason', 'x'],
    ['votes:void', '--listing', '987654', '--reason', 'x'],
    ['votes:void', '--listing', String(id), '--reason', '   '],
    ['votes:void', '--listing', String(id), '--reason', 'x'.repeat(501)],
    ['votes:void', '--listing', String(id), '--reason', 'x', '--user', 'nobody@example.com'],
  ];
  for (const args of cases) {
    const res = await adminInProcess(env, ...args);
    t.not(res.code, 0, args.join(' '));
    t.truthy(res.stderr.trim(), args.join(' '));
  }
  const real = await admin(env, 'votes:void', '--listing', '987654', '--reason', 'x');
  t.is(real.code, 1);
  t.truthy(real.stderr.trim());
  t.false(real.stderr.includes('    at '), 'no stack trace');
  t.deepEqual(await voteCounts(db(), id), { votes: 2, week_votes: 2, rows: 2 });
  t.is(crowd.length, 2);
  t.is(
    await db()('voided_votes')
      .where({ listing_id: id })
      .count({ count: '*' })
      .then(([r]) => Number(r!.count)),
    0,
  );
});
