import test from 'ava';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { load } from 'cheerio';
import { api, request, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { seasonedAccount } from '../helpers/comments.ts';
import { insertDraftListing, insertLiveListing } from '../helpers/listings.ts';
import { mcpParity } from '../helpers/mcp-parity.ts';

type User = { userId: number; key: string; email: string };

const clock = new ManualClock(new Date());
let env: TestEnv;
let parity: ReturnType<typeof mcpParity>;
let maker: User;

test.before(async () => {
  // Loopback is one network for every poster here; the network limit has its own test below.
  env = await startTestEnv(
    import.meta.url,
    { COMMENTS_PER_ACCOUNT_PER_HOUR: '5', COMMENTS_PER_NETWORK_PER_HOUR: '100000', LEADERBOARD_CACHE_TTL_MS: '0' },
    { clock },
  );
  parity = mcpParity(env);
  maker = await person();
});
test.after.always(async () => {
  await parity?.close();
  await env?.close();
});

const db = () => env.services.db;
let listings = 0;
const live = (ownerId = maker.userId) =>
  insertLiveListing(db(), { name: `Talk ${++listings}`, ownerId, url: `https://talk${listings}.example.com/` });

/** A confirmed account of a few days, with a key of every scope. */
async function person(): Promise<User> {
  const user = await env.user();
  await seasonedAccount(db(), user.userId);
  return user;
}

const post = (key: string | undefined, listingId: number, body: unknown) =>
  api(env, 'POST', `/listings/${listingId}/comments`, { key, body });
const thread = (listingId: number, query = '', key?: string) => api(env, 'GET', `/listings/${listingId}/comments${query}`, { key });
const countOf = async (listingId: number) => (await db()('listings').where({ id: listingId }).first('comment_count'))!.comment_count;

test('a comment and a reply: visitors read them, makers are marked, the count moves', async (t) => {
  const listingId = await live();
  const visitor = await person();
  const asked = await post(visitor.key, listingId, {
    body: '  Does it work offline?\n\nAsking for a friend: https://friend.example.org/page.  ',
  });
  t.is(asked.status, 201, JSON.stringify(asked.body));
  t.like(asked.body, { status: 'visible', parent_id: null, author: { maker: false }, votes: 0, mine: true, edited_at: null });
  t.is(asked.body.body, 'Does it work offline?\n\nAsking for a friend: https://friend.example.org/page.');
  t.truthy(asked.body.editable_until);

  const answer = await api(env, 'POST', `/comments/${asked.body.id}/replies`, { key: maker.key, body: { body: 'Yes, fully.' } });
  t.is(answer.status, 201, JSON.stringify(answer.body));
  t.like(answer.body, { parent_id: asked.body.id, author: { maker: true } });

  const read = await thread(listingId);
  t.is(read.status, 200);
  t.like(read.body, { listing_id: listingId, comment_count: 2, total: 1, sort: 'top', page: 1 });
  t.is(read.body.items[0].replies[0].body, 'Yes, fully.');
  t.false(read.body.items[0].mine);
  t.is(await countOf(listingId), 2);
  // The ranking shows the count beside each launch.
  const board = await api(env, 'GET', '/leaderboards/community-weekly?per_page=100');
  t.is(board.body.items.find((i: { id: number }) => i.id === listingId).comment_count, 2);
  const launches = await fetch(`${env.baseUrl}/launches`).then((r) => r.text());
  const { slug } = (await db()('listings').where({ id: listingId }).first('slug'))!;
  t.true(launches.includes(`href="/listings/${slug}#discussion" data-comment-count="2">2 comments`));

  // A reply to a reply is refused: one level.
  const deeper = await post(visitor.key, listingId, { parent_id: answer.body.id, body: 'Thanks!' });
  t.like(deeper, { status: 422, body: { code: 'reply_to_reply' } });
});

test('the same through MCP: list, post, reply, vote, report', async (t) => {
  const listingId = await live();
  const [asker, fan] = [await person(), await person()];
  const posted = await parity.viaMcp(asker.key, 'post_comment', { listing_id: listingId, body: 'Over MCP' });
  t.false(posted.error, JSON.stringify(posted.body));
  const replied = await parity.viaMcp(maker.key, 'reply_comment', { comment_id: posted.body.id, body: 'Answered over MCP' });
  t.like(replied, { error: false, body: { parent_id: posted.body.id, author: { maker: true } } });
  t.like(await parity.viaMcp(fan.key, 'vote_comment', { comment_id: posted.body.id }), { error: false, body: { votes: 1, voted: true } });
  t.like(await parity.viaMcp(fan.key, 'unvote_comment', { comment_id: posted.body.id }), {
    error: false,
    body: { votes: 0, voted: false },
  });
  t.like(await parity.viaMcp(fan.key, 'report_comment', { comment_id: posted.body.id, reason: 'spam' }), { error: false });
  const listed = await parity.viaMcp(undefined, 'list_comments', { listing_id: listingId, sort: 'newest' });
  t.like(listed, { error: false, body: { comment_count: 2, total: 1 } });
  // Without a token the write tool asks for sign-in; a key without the scope is refused.
  const narrow = await env.user(['listings:write']);
  const refused = await parity.viaRest(narrow.key, 'post_comment', { listing_id: listingId, body: 'no scope' });
  t.like(refused, { status: 403, body: { code: 'insufficient_scope' } });
  t.is((await post(undefined, listingId, { body: 'anonymous' })).status, 401);
});

test('bad input is a clear 400, never a 500', async (t) => {
  const listingId = await live();
  const writer = await person();
  const cases: [unknown, RegExp][] = [
    [{ body: '' }, /empty/i],
    [{ body: '   \n\n  ' }, /empty/i],
    [{ body: 'x'.repeat(5001) }, /5000/],
    [{ body: 'broken \ud800 text' }, /well-formed/],
    [{ body: 'a https://a.example/ b https://b.example/ c https://c.example/ d https://d.example/' }, /4 links.*at most 3/],
    [{ body: 'control \u0007 bell' }, /plain text/],
    [{ body: '<b>hi</b>', extra: 1 }, /extra/],
  ];
  for (const [body, message] of cases) {
    const res = await post(writer.key, listingId, body);
    t.is(res.status, 400, JSON.stringify(body));
    t.is(res.body.code, 'validation_failed');
    t.regex(JSON.stringify(res.body.errors), message);
  }
  t.is(await countOf(listingId), 0);
  // HTML is text, kept as typed and never markup.
  const html = await post(writer.key, listingId, { body: '<script>alert(1)</script>' });
  t.is(html.status, 201);
  t.is(html.body.body, '<script>alert(1)</script>');
});

test('only live listings take comments; an unconfirmed account cannot post', async (t) => {
  const draft = await insertDraftListing(db(), { name: 'Not Yet', ownerId: maker.userId, url: 'https://notyet.example.com/' });
  const writer = await person();
  t.like(await post(writer.key, draft, { body: 'Hello?' }), { status: 404, body: { code: 'not_found' } });
  t.like(await thread(draft), { status: 404 });
  const listingId = await live();
  const fresh = await env.user();
  t.like(await post(fresh.key, listingId, { body: 'Hello?' }), { status: 403, body: { code: 'email_unconfirmed' } });
  t.like(await post(writer.key, listingId, { parent_id: 2_000_000, body: 'To nobody' }), { status: 404 });
});

test('someone else’s comment cannot be edited or deleted (403); a missing one is 404', async (t) => {
  const listingId = await live();
  const [author, other] = [await person(), await person()];
  const c = await post(author.key, listingId, { body: 'Mine' });
  t.like(await api(env, 'PATCH', `/comments/${c.body.id}`, { key: other.key, body: { body: 'Yours now' } }), {
    status: 403,
    body: { code: 'not_comment_author' },
  });
  t.like(await api(env, 'DELETE', `/comments/${c.body.id}`, { key: other.key }), { status: 403 });
  t.like(await api(env, 'DELETE', `/comments/1999999`, { key: other.key }), { status: 404 });
  t.like(await api(env, 'POST', `/comments/${c.body.id}/vote`, { key: author.key }), { status: 422, body: { code: 'own_comment' } });
});

test('delete: the text is gone at once; with replies "deleted" stays in place, without them nothing', async (t) => {
  const listingId = await live();
  const [a, b] = [await person(), await person()];
  const lone = await post(a.key, listingId, { body: 'Lone words' });
  const asked = await post(a.key, listingId, { body: 'Asked words' });
  await post(b.key, listingId, { parent_id: asked.body.id, body: 'A reply' });
  t.is(await countOf(listingId), 3);
  t.like(await api(env, 'DELETE', `/comments/${lone.body.id}`, { key: a.key }), { status: 200, body: { deleted: true } });
  t.like(await api(env, 'DELETE', `/comments/${asked.body.id}`, { key: a.key }), { status: 200 });
  t.is(await countOf(listingId), 1);
  const read = await thread(listingId);
  t.is(read.body.items.length, 1);
  t.like(read.body.items[0], { id: asked.body.id, status: 'deleted', body: '', author: null });
  t.is(read.body.items[0].replies[0].body, 'A reply');
  t.is((await db()('comments').where({ id: lone.body.id }).first())!.body, '');
  t.like(await api(env, 'DELETE', `/comments/${asked.body.id}`, { key: a.key }), { status: 404 });
});

test('the same text on several listings is refused (409); on the same listing it is a new comment', async (t) => {
  const [one, two] = [await live(), await live()];
  const spammer = await person();
  t.is((await post(spammer.key, one, { body: 'Check out my site, best deals!' })).status, 201);
  const again = await post(spammer.key, two, { body: 'check out my SITE —  best deals' });
  t.like(again, { status: 409, body: { code: 'comment_duplicate' } });
  t.is(await countOf(two), 0);
  // Another person may say the same thing.
  t.is((await post((await person()).key, two, { body: 'Check out my site, best deals!' })).status, 201);
});

test('a new account’s comment is held: its author sees it waiting, nobody else, and it counts nowhere', async (t) => {
  const listingId = await live();
  const newcomer = await env.user();
  await db()('users').where({ id: newcomer.userId }).update({ email_verified_at: db().fn.now() });
  const held = await post(newcomer.key, listingId, { body: 'First words here' });
  t.is(held.status, 201);
  t.is(held.body.status, 'held');
  t.is(await countOf(listingId), 0);
  t.is((await thread(listingId)).body.total, 0);
  const own = await thread(listingId, '', newcomer.key);
  t.is(own.body.total, 1);
  t.like(own.body.items[0], { status: 'held', mine: true, body: 'First words here' });
  // Nobody can reply to or vote on what they cannot see.
  const other = await person();
  t.is((await post(other.key, listingId, { parent_id: held.body.id, body: 'Hm' })).status, 404);
  t.is((await api(env, 'POST', `/comments/${held.body.id}/vote`, { key: other.key })).status, 404);
});

test('per account: the sixth comment within the hour is 429 with Retry-After', async (t) => {
  const listingId = await live();
  const fast = await person();
  for (let i = 1; i <= 5; i++) t.is((await post(fast.key, listingId, { body: `Comment number ${i}` })).status, 201);
  const sixth = await post(fast.key, listingId, { body: 'Comment number 6' });
  t.like(sixth, { status: 429, body: { code: 'rate_limited' } });
  t.true(Number(sixth.headers.get('retry-after')) > 0);
});

test('per network: posts of many accounts from one network share its limit', async (t) => {
  const { postComment } = await import('../../src/domain/comments/post.ts');
  const listingId = await live();
  const rules = { ...env.services.config.comments, perNetworkPerHour: 3 };
  const people = await Promise.all([1, 2, 3, 4].map(() => person()));
  const from = (i: number) => ({ userId: people[i]!.userId, ip: `203.0.113.${10 + i}` });
  for (const i of [0, 1, 2]) await postComment(db(), from(i), { listingId, body: `From the network ${i}` }, rules, clock.now());
  const error = await t.throwsAsync(postComment(db(), from(3), { listingId, body: 'One too many' }, rules, clock.now()));
  t.like(error, { code: 'rate_limited' });
  // Another network is not held back.
  await postComment(db(), { ...from(3), ip: '198.51.100.7' }, { listingId, body: 'Elsewhere' }, rules, clock.now());
  t.deepEqual(
    await db()('comments').where({ listing_id: listingId }).orderBy('id').pluck('body'),
    ['From the network 0', 'From the network 1', 'From the network 2', 'Elsewhere'],
    'the refused post stored nothing; the one from another network is stored',
  );
});

test('100 parallel posters: every comment stored once, the count exact', async (t) => {
  const listingId = await live();
  const posters = await Promise.all(Array.from({ length: 100 }, () => person()));
  const results = await Promise.all(posters.map((p, i) => post(p.key, listingId, { body: `Parallel voice ${i}` })));
  t.deepEqual(
    results.map((r) => r.status),
    results.map(() => 201),
  );
  t.is(new Set(results.map((r) => r.body.id)).size, 100);
  t.is(Number((await db()('comments').where({ listing_id: listingId }).count({ n: '*' }))[0]!.n), 100);
  t.is(await countOf(listingId), 100);
  t.is((await thread(listingId, '?per_page=100')).body.total, 100);
});

test('parallel votes on a comment are exact; voting twice changes nothing', async (t) => {
  const listingId = await live();
  const author = await person();
  const c = await post(author.key, listingId, { body: 'Vote for me' });
  const voters = await Promise.all(Array.from({ length: 40 }, () => person()));
  // Each voter votes twice at once: 40 counted, never 80.
  const votes = await Promise.all(voters.flatMap((v) => [1, 2].map(() => api(env, 'POST', `/comments/${c.body.id}/vote`, { key: v.key }))));
  t.true(votes.every((r) => r.status === 200));
  t.is(votes.filter((r) => r.body.changed).length, 40);
  t.is((await db()('comments').where({ id: c.body.id }).first())!.votes, 40);
  const back = await Promise.all(voters.slice(0, 15).map((v) => api(env, 'DELETE', `/comments/${c.body.id}/vote`, { key: v.key })));
  t.true(back.every((r) => r.status === 200));
  t.is((await db()('comments').where({ id: c.body.id }).first())!.votes, 25);
  // Top sorts by votes, then age; newest by age.
  const later = await post((await person()).key, listingId, { body: 'No votes here' });
  t.deepEqual(
    (await thread(listingId)).body.items.map((i: { id: number }) => i.id),
    [c.body.id, later.body.id],
  );
  t.deepEqual(
    (await thread(listingId, '?sort=newest')).body.items.map((i: { id: number }) => i.id),
    [later.body.id, c.body.id],
  );
});

test.serial('edit within 10 minutes shows "edited"; after 10 minutes 409', async (t) => {
  const listingId = await live();
  const author = await person();
  const c = await post(author.key, listingId, { body: 'Frist!' });
  clock.advance(9 * 60_000);
  const edited = await api(env, 'PATCH', `/comments/${c.body.id}`, { key: author.key, body: { body: 'First!' } });
  t.is(edited.status, 200, JSON.stringify(edited.body));
  t.is(edited.body.body, 'First!');
  t.truthy(edited.body.edited_at);
  clock.advance(60_000);
  const late = await api(env, 'PATCH', `/comments/${c.body.id}`, { key: author.key, body: { body: 'Too late' } });
  t.like(late, { status: 409, body: { code: 'comment_edit_closed' } });
  t.is((await thread(listingId)).body.items[0].body, 'First!');
  // Deleting has no window.
  t.is((await api(env, 'DELETE', `/comments/${c.body.id}`, { key: author.key })).status, 200);
});

test('listing cards show the comment count: the front page’s ranking and a category page', async (t) => {
  const listingId = await live();
  await db()('listings')
    .where({ id: listingId })
    .update({ categories: ['analytics'], week_votes: 1_000, votes: 1_000 });
  const { slug, name } = (await db()('listings').where({ id: listingId }).first('slug', 'name'))!;
  for (const body of ['First question?', 'Second question?']) t.is((await post((await person()).key, listingId, { body })).status, 201);
  for (const path of ['/', '/categories/analytics']) {
    const page = await request(env, 'GET', path);
    const link = load(page.text)(`li.card a.comments[href="/listings/${slug}#discussion"]`);
    t.is(link.attr('data-comment-count'), '2', path);
    t.is(link.text(), `2 comments on ${name}`, path);
  }
});
