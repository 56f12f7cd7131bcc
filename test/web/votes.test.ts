import test from 'ava';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { shiftIntoPast, voteCounts, voters, type Voter } from '../helpers/votes.ts';
import { WebClient, type WebResponse } from '../helpers/web.ts';

/** Voting from the listing page and /launches over HTTP: the rules, races and refusals. */

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const db = () => env.services.db;

async function listing(name: string, ownerId?: number) {
  const id = await insertLiveListing(db(), { name, ownerId, url: `https://${name.toLowerCase().replace(/\W+/g, '')}.example.org/` });
  const { slug } = (await db()('listings').where({ id }).first('slug'))!;
  return { id, slug: slug as string };
}

const token = (page: WebResponse, action: string) => page.$(`form[action="${action}"] input[name=_csrf]`).val() as string;

/** Votes (or unvotes) the way the page's button does: GET the page, post its form. */
async function press(voter: Voter, slug: string, kind: 'vote' | 'unvote', from = `/listings/${slug}`): Promise<WebResponse> {
  const page = await voter.client.get(from);
  const action = `/listings/${slug}/${kind}`;
  const _csrf = token(page, action);
  if (!_csrf) throw new Error(`no ${kind} button for ${slug} on ${from}: state ${page.$(`#vote-${slug}`).attr('data-vote-state')}`);
  const return_to = page.$(`form[action="${action}"] input[name=return_to]`).val() as string;
  return voter.client.post(action, { _csrf, return_to });
}

test('100 accounts voting in parallel count exactly 100', async (t) => {
  const { id, slug } = await listing('Race Track');
  const crowd = await voters(db(), env.baseUrl, 100);
  // Each voter loads the page first (its own CSRF token), then all posts go out at once.
  const forms = await Promise.all(
    crowd.map(async (v) => ({ v, _csrf: token(await v.client.get(`/listings/${slug}`), `/listings/${slug}/vote`) })),
  );
  const results = await Promise.all(forms.map(({ v, _csrf }) => v.client.post(`/listings/${slug}/vote`, { _csrf })));
  t.deepEqual([...new Set(results.map((r) => r.status))], [303]);
  t.deepEqual(await voteCounts(db(), id), { votes: 100, week_votes: 100, rows: 100 });
  // The same 100 again, in parallel: one vote per account, nothing changes.
  const again = await Promise.all(forms.map(({ v, _csrf }) => v.client.post(`/listings/${slug}/vote`, { _csrf })));
  t.deepEqual([...new Set(again.map((r) => r.status))], [303]);
  t.deepEqual(await voteCounts(db(), id), { votes: 100, week_votes: 100, rows: 100 });
  t.is((await crowd[0]!.client.get(`/listings/${slug}`)).$('[data-votes]').text(), '100');
});

test('vote, see it on the page, unvote during the launch week, vote again', async (t) => {
  const { id, slug } = await listing('Vote Flow');
  const [voter] = await voters(db(), env.baseUrl, 1);
  const before = await voter!.client.get(`/listings/${slug}`);
  t.is(before.$(`#vote-${slug}`).attr('data-vote-state'), 'none');
  t.is(before.$(`#vote-${slug} button`).text(), 'Vote for Vote Flow');

  const voted = await press(voter!, slug, 'vote');
  t.is(voted.status, 303);
  t.is(voted.location, `/listings/${slug}?notice=voted#vote-${slug}`);
  const after = await voter!.client.get(voted.location!);
  t.is(after.$('.notice').text(), 'Your vote is counted.');
  t.is(after.$(`#vote-${slug}`).attr('data-vote-state'), 'voted');
  t.is(after.$('[data-votes]').text(), '1');
  t.deepEqual(await voteCounts(db(), id), { votes: 1, week_votes: 1, rows: 1 });

  const unvoted = await press(voter!, slug, 'unvote');
  t.is(unvoted.location, `/listings/${slug}?notice=unvoted#vote-${slug}`);
  t.deepEqual(await voteCounts(db(), id), { votes: 0, week_votes: 0, rows: 0 });
  // Unvoting without a vote changes nothing (a second tab's stale button).
  const _csrf = token(await voter!.client.get(`/listings/${slug}`), `/listings/${slug}/vote`);
  t.is((await voter!.client.post(`/listings/${slug}/unvote`, { _csrf })).status, 303);
  t.deepEqual(await voteCounts(db(), id), { votes: 0, week_votes: 0, rows: 0 });

  t.is((await press(voter!, slug, 'vote')).status, 303);
  t.deepEqual(await voteCounts(db(), id), { votes: 1, week_votes: 1, rows: 1 });
});

test('after the launch week a vote stands: no Unvote button, a forced unvote is refused', async (t) => {
  const { id, slug } = await listing('Last Week');
  const [voter, late] = await voters(db(), env.baseUrl, 2);
  await press(voter!, slug, 'vote');
  await shiftIntoPast(db(), id, 1);
  const page = await voter!.client.get(`/listings/${slug}`);
  t.is(page.$(`#vote-${slug}`).attr('data-vote-state'), 'voted');
  t.is(page.$(`form[action="/listings/${slug}/unvote"]`).length, 0);
  const _csrf = page.$('input[name=_csrf]').first().val() as string;
  const refused = await voter!.client.post(`/listings/${slug}/unvote`, { _csrf });
  t.is(refused.status, 409);
  t.regex(refused.$('main').text(), /launch week of this listing is over/);
  t.deepEqual(await voteCounts(db(), id), { votes: 1, week_votes: 1, rows: 1 });
  // A vote after the launch week counts in `votes` but not in the week's score.
  t.is((await press(late!, slug, 'vote')).status, 303);
  t.deepEqual(await voteCounts(db(), id), { votes: 2, week_votes: 1, rows: 2 });
});

test('owners cannot vote for their own listing', async (t) => {
  const [owner] = await voters(db(), env.baseUrl, 1);
  const { id, slug } = await listing('Own Thing', owner!.id);
  const page = await owner!.client.get(`/listings/${slug}`);
  t.is(page.$(`#vote-${slug}`).attr('data-vote-state'), 'own');
  t.is(page.$(`form[action="/listings/${slug}/vote"]`).length, 0);
  const _csrf = page.$('input[name=_csrf]').first().val() as string;
  const refused = await owner!.client.post(`/listings/${slug}/vote`, { _csrf });
  t.is(refused.status, 422);
  t.regex(refused.$('main').text(), /cannot vote for your own listing/);
  t.deepEqual(await voteCounts(db(), id), { votes: 0, week_votes: 0, rows: 0 });
});

test('accounts without a confirmed email cannot vote', async (t) => {
  const { id, slug } = await listing('Confirm First');
  const [unconfirmed] = await voters(db(), env.baseUrl, 1, false);
  const page = await unconfirmed!.client.get(`/listings/${slug}`);
  t.is(page.$(`#vote-${slug}`).attr('data-vote-state'), 'unconfirmed');
  const _csrf = page.$('input[name=_csrf]').first().val() as string;
  const refused = await unconfirmed!.client.post(`/listings/${slug}/vote`, { _csrf });
  t.is(refused.status, 403);
  t.regex(refused.$('main').text(), /Confirm your email address/);
  t.deepEqual(await voteCounts(db(), id), { votes: 0, week_votes: 0, rows: 0 });
});

test('a post without this session’s CSRF token changes nothing', async (t) => {
  const { id, slug } = await listing('Csrf Guard');
  const [voter, other] = await voters(db(), env.baseUrl, 2);
  await press(voter!, slug, 'vote');
  const othersToken = token(await other!.client.get(`/listings/${slug}`), `/listings/${slug}/vote`);
  const forms: Record<string, string>[] = [{}, { _csrf: '' }, { _csrf: 'forged' }, { _csrf: othersToken }];
  for (const form of forms) {
    const vote = await (await voters(db(), env.baseUrl, 1))[0]!.client.post(`/listings/${slug}/vote`, form);
    t.is(vote.status, 403, JSON.stringify(form));
    t.regex(vote.$('main').text(), /not sent from this site/);
    const unvote = await voter!.client.post(`/listings/${slug}/unvote`, form);
    t.is(unvote.status, 403, JSON.stringify(form));
  }
  t.deepEqual(await voteCounts(db(), id), { votes: 1, week_votes: 1, rows: 1 });
});

test('visitors are sent to sign in; unknown or unlisted listings are 404; return_to stays on this site', async (t) => {
  const { id, slug } = await listing('Edge Cases');
  const visitor = new WebClient(env.baseUrl);
  const page = await visitor.get(`/listings/${slug}`);
  t.is(page.$(`#vote-${slug}`).attr('data-vote-state'), 'anonymous');
  t.is(page.$(`#vote-${slug} a`).attr('href'), `/signin?return_to=${encodeURIComponent(`/listings/${slug}`)}`);
  const _csrf = page.$('input[name=_csrf]').first().val() as string | undefined;
  const anonymous = await visitor.post(`/listings/${slug}/vote`, { _csrf: _csrf ?? '' });
  t.true([303, 403].includes(anonymous.status));
  t.deepEqual(await voteCounts(db(), id), { votes: 0, week_votes: 0, rows: 0 });

  const [voter] = await voters(db(), env.baseUrl, 1);
  const form = { _csrf: token(await voter!.client.get(`/listings/${slug}`), `/listings/${slug}/vote`) };
  t.is((await voter!.client.post('/listings/no-such-listing/vote', form)).status, 404);
  const hostile = await voter!.client.post(`/listings/${slug}/vote`, { ...form, return_to: '//evil.example/steal' });
  t.is(hostile.location, `/listings/${slug}?notice=voted#vote-${slug}`);
  const fromLaunches = await voter!.client.post(`/listings/${slug}/unvote`, { ...form, return_to: '/launches?week=2020-W01' });
  t.is(fromLaunches.location, `/launches?week=2020-W01&notice=unvoted#vote-${slug}`);

  await db()('listings').where({ id }).update({ status: 'unlisted' });
  t.is((await voter!.client.post(`/listings/${slug}/vote`, form)).status, 404);
  t.deepEqual(await voteCounts(db(), id), { votes: 0, week_votes: 0, rows: 0 });
});

test('/launches ranks this week’s launches with vote buttons and the formula', async (t) => {
  const a = await listing('Alpha Launch');
  const b = await listing('Beta Launch');
  const crowd = await voters(db(), env.baseUrl, 3);
  for (const v of crowd) await press(v, b.slug, 'vote', '/launches');
  const voted = await press(crowd[0]!, a.slug, 'vote', '/launches');
  t.regex(voted.location!, new RegExp(`^/launches\\?week=\\d{4}-\\d{2}-\\d{2}&notice=voted#vote-${a.slug}$`));
  const page = await crowd[0]!.client.get(voted.location!);
  t.is(page.status, 200);
  const ranked = page
    .$('table.ranking tbody tr')
    .map((_, row) => page.$(row).attr('data-listing'))
    .get();
  t.true(ranked.indexOf(b.slug) < ranked.indexOf(a.slug));
  const rowB = page.$(`tr[data-listing="${b.slug}"]`);
  t.is(rowB.find('[data-score]').text(), '3');
  t.is(rowB.find('[data-vote-state]').attr('data-vote-state'), 'voted');
  // How the ranking works, in sentences; the API's field names only in the aside for developers.
  const how = page.$('section[aria-labelledby=how-ranking]');
  t.regex(how.find('p').first().text(), /^A launch’s score is the number of votes it got during its launch week/);
  t.is(how.find('a[href="/ranking-policy"]').length, 1);
  const outsideAside = how.clone();
  outsideAside.find('aside').remove();
  t.notRegex(outsideAside.text(), /network_cluster|votes_discounted|votes_removed|formula/);
  t.regex(how.find('aside').text(), /^For developers.*votes_discounted.*votes_removed.*network_cluster/s);
  t.notRegex(page.text, /\d{4}-W\d{2}/);
  t.is(page.$('[data-state]').attr('data-state'), 'live');

  const bad = await crowd[0]!.client.get('/launches?week=2026-W99');
  t.is(bad.status, 400);
  t.regex(bad.$('main').text(), /the Monday it starts on, such as 2026-11-23/);
  // An ISO week in the address still finds its week (links from before, and the API's names).
  t.is((await crowd[0]!.client.get('/launches?week=2026-W48')).$('h1').text(), 'Launches of the week of 23 Nov 2026');
});

test('/launches shows the upcoming weeks of the launch queue with their slots', async (t) => {
  const page = await new WebClient(env.baseUrl).get('/launches');
  t.is(page.status, 200);
  const rows = page
    .$('table.upcoming-weeks tbody tr')
    .map((_, row) =>
      page
        .$(row)
        .find('td')
        .map((__, td) => page.$(td).text())
        .get()
        .join('|'),
    )
    .get();
  t.is(rows.length, 12);
  for (const row of rows) t.regex(row, /^Week \d{1,2} · [^|]+ \d{4}\|\d+ of 15\|\d+ of 10\|(Slots left|Full|Running now|Over)$/);
});
