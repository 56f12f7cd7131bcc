import { randomBytes } from 'node:crypto';
import test from 'ava';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { WebClient, type WebResponse } from '../helpers/web.ts';
import { workflowResult } from '../helpers/workflows.ts';

/** Following from the listing page and the notifications page, over HTTP with a cookie-keeping client. */

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  await env.startWorkers();
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const PASSWORD = 'follow page password';
const HOSTILE = '<script>alert(1)</script>';

async function signedIn() {
  const email = `fan-${randomBytes(4).toString('hex')}@example.com`;
  const user = await createVerifiedUser(db(), email, PASSWORD);
  const client = new WebClient(env.baseUrl);
  const res = await client.signIn(email, PASSWORD);
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
  return { user, client };
}

/** A live listing of a new owner, with the owner's API key for posting updates. */
async function listing(name: string) {
  const owner = await env.user();
  const id = await insertLiveListing(db(), { name, ownerId: owner.userId });
  const { slug } = (await db()('listings').where({ id }).first('slug'))!;
  return { owner, id, slug: slug as string };
}

const followers = (res: WebResponse) => Number(res.$('[data-followers]').text());
const followState = (res: WebResponse) => res.$('.follow').attr('data-following');
const rows = (listingId: number) => db()('listing_followers').where({ listing_id: listingId }).pluck('user_id');

test('follow from the page, get the update on the notifications page, unfollow', async (t) => {
  const { owner, id, slug } = await listing('Follow Me');
  const { user, client } = await signedIn();

  const before = await client.get(`/listings/${slug}`);
  t.is(followers(before), 0);
  t.is(followState(before), 'false');
  const _csrf = before.$('form[action$="/follow"] input[name=_csrf]').val() as string;
  t.is(before.$('form[action$="/follow"]').attr('action'), `/listings/${slug}/follow`);
  t.is(before.$('form[action$="/follow"] button').text(), 'Follow Follow Me');

  const followed = await client.post(`/listings/${slug}/follow`, { _csrf });
  t.is(followed.status, 303);
  t.is(followed.location, `/listings/${slug}?notice=followed`);
  const after = await client.get(followed.location!);
  t.is(followers(after), 1);
  t.is(followState(after), 'true');
  t.is(after.$('.notice').text(), 'You follow this listing now.');
  // Following again changes nothing.
  t.is((await client.post(`/listings/${slug}/follow`, { _csrf })).status, 303);
  t.is(followers(await client.get(`/listings/${slug}`)), 1);
  t.deepEqual(await rows(id), [user.id]);

  const empty = await client.get('/account/notifications');
  t.is(empty.status, 200);
  t.is(empty.$('ol.feed').length, 0);
  t.regex(empty.$('main').text(), /No notifications yet/);

  const posted = await api(env, 'POST', `/me/listings/${id}/updates`, {
    key: owner.key,
    body: { title: `Version 2 ${HOSTILE}`, body: `We shipped.\n\nMore ${HOSTILE}` },
  });
  t.is(posted.status, 201);
  await workflowResult(env, posted.body.workflow_id);
  const inbox = await client.get('/account/notifications');
  t.false(inbox.text.includes('<script>alert'));
  const entries = inbox.$('ol.feed article');
  t.is(entries.length, 1);
  t.is(entries.find('h2').text(), `Version 2 ${HOSTILE}`);
  t.is(entries.find(`a[href="/listings/${slug}"]`).text(), 'Follow Me');
  t.deepEqual(
    entries
      .find('p:not(.muted)')
      .map((_, p) => inbox.$(p).text())
      .get(),
    ['We shipped.', `More ${HOSTILE}`],
  );
  // Nobody else sees it.
  const stranger = await signedIn();
  t.is((await stranger.client.get('/account/notifications')).$('ol.feed').length, 0);

  const unfollowForm = after.$('form[action$="/unfollow"]');
  t.is(unfollowForm.find('button').text(), 'Unfollow Follow Me');
  const unfollowed = await client.post(unfollowForm.attr('action')!, { _csrf: unfollowForm.find('input[name=_csrf]').val() as string });
  t.is(unfollowed.status, 303);
  t.is(unfollowed.location, `/listings/${slug}?notice=unfollowed`);
  const gone = await client.get(unfollowed.location!);
  t.is(followers(gone), 0);
  t.is(followState(gone), 'false');
  t.deepEqual(await rows(id), []);
  // Not following already is fine, and the count stays at zero.
  t.is((await client.post(`/listings/${slug}/unfollow`, { _csrf })).status, 303);
  t.is(followers(await client.get(`/listings/${slug}`)), 0);
});

test('a post without this session’s CSRF token is refused with 403 and changes nothing', async (t) => {
  const { id, slug } = await listing('Guarded');
  const { user, client } = await signedIn();
  const other = await signedIn();
  const otherToken = await other.client.csrfFrom(`/listings/${slug}`);

  const forms: Record<string, string>[] = [{}, { _csrf: '' }, { _csrf: 'forged' }, { _csrf: otherToken }];
  for (const form of forms) {
    const res = await client.post(`/listings/${slug}/follow`, form);
    t.is(res.status, 403, JSON.stringify(form));
    t.is(res.$('h1').text(), 'This form has expired');
  }
  t.deepEqual(await rows(id), []);
  t.is(followers(await client.get(`/listings/${slug}`)), 0);

  // Following for real, then a forged unfollow leaves the follow in place.
  await client.post(`/listings/${slug}/follow`, { _csrf: await client.csrfFrom(`/listings/${slug}`) });
  t.is((await client.post(`/listings/${slug}/unfollow`, { _csrf: otherToken })).status, 403);
  t.is((await client.post(`/listings/${slug}/unfollow`, {})).status, 403);
  t.deepEqual(await rows(id), [user.id]);
  t.is(followers(await client.get(`/listings/${slug}`)), 1);
});

test('visitors get a sign-in link that comes back to the listing; their posts change nothing', async (t) => {
  const { id, slug } = await listing('Visitors Welcome');
  const visitor = new WebClient(env.baseUrl);
  const page = await visitor.get(`/listings/${slug}`);
  t.is(page.$('.follow form').length, 0);
  const link = page.$('.follow a');
  t.is(link.text(), 'Sign in to follow');
  t.is(link.attr('href'), `/signin?return_to=${encodeURIComponent(`/listings/${slug}`)}`);

  // A visitor's post (with a valid anonymous token) goes to the sign-in page.
  const _csrf = await visitor.csrfFrom('/signin');
  const refused = await visitor.post(`/listings/${slug}/follow`, { _csrf });
  t.is(refused.status, 303);
  t.is(refused.location, '/signin');
  t.deepEqual(await rows(id), []);

  // Signing in from the link lands back on the listing, ready to follow.
  const email = `visitor-${randomBytes(4).toString('hex')}@example.com`;
  await createVerifiedUser(db(), email, PASSWORD);
  const signin = await visitor.get(link.attr('href')!);
  const back = await visitor.post('/signin', {
    _csrf: signin.$('input[name=_csrf]').val() as string,
    email,
    password: PASSWORD,
    return_to: signin.$('input[name=return_to]').val() as string,
  });
  t.is(back.status, 303);
  t.is(back.location, `/listings/${slug}`);
  t.is(followState(await visitor.get(back.location!)), 'false');
});

test('listings that are not live or do not exist cannot be followed; the notifications page needs a sign-in', async (t) => {
  const { id, slug } = await listing('Soon Gone');
  const { client } = await signedIn();
  const _csrf = await client.csrfFrom(`/listings/${slug}`);
  await db()('listings').where({ id }).update({ status: 'unlisted' });
  for (const path of [`/listings/${slug}/follow`, '/listings/no-such-listing/follow', '/listings/%3Cscript%3E/follow']) {
    const res = await client.post(path, { _csrf });
    t.is(res.status, 404, path);
    t.regex(res.headers.get('content-type')!, /^text\/html/);
  }
  t.deepEqual(await rows(id), []);
  t.is((await db()('listings').where({ id }).first('follower_count'))!.follower_count, 0);

  const visitor = new WebClient(env.baseUrl);
  const away = await visitor.get('/account/notifications?page=2');
  t.is(away.status, 303);
  t.is(away.location, `/signin?return_to=${encodeURIComponent('/account/notifications?page=2')}`);
  for (const bad of ['0', 'abc', '-1', '1e3', '9999999']) {
    t.is((await client.get(`/account/notifications?page=${bad}`)).status, 400, bad);
  }
  t.is((await client.get('/account/notifications?page=3')).status, 200);
});

test('the account overview links every page of the account area and the owner’s story editors', async (t) => {
  const { user, client } = await signedIn();
  const live = await insertLiveListing(db(), { name: `Mine ${HOSTILE}`, ownerId: user.id });
  const overview = await client.get('/account');
  t.false(overview.text.includes('<script>alert'));
  const links = overview
    .$('nav[aria-labelledby=account-pages] a')
    .map((_, a) => overview.$(a).attr('href'))
    .get();
  t.deepEqual(links, [
    '/account/listings',
    '/account/notifications',
    '/account/orders',
    '/account/founder-profile',
    '/account/keys',
    '/account/webhooks',
    '/account/claims',
    '/account/sign-ins',
    '/account/connected-apps',
    '/updates',
  ]);
  const item = overview.$('ul.owned li');
  t.is(item.length, 1);
  t.is(item.find(`a[href="/account/listings/${live}/story"]`).text(), `Edit the founder story of Mine ${HOSTILE}`);
  t.is(overview.$('header nav a[href="/updates"]').text(), 'Latest updates');
  // Someone without listings has no listings section.
  const other = await signedIn();
  t.is((await other.client.get('/account')).$('ul.owned').length, 0);
});
