import test from 'ava';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { voters, type Voter } from '../helpers/votes.ts';
import { WebClient } from '../helpers/web.ts';
import { joinSlots, slot, slotsOf, splitPage } from '../../src/web/personal-slots.ts';
import { html } from '../../src/web/html.ts';

/**
 * A signed-in person's listing page made of the kept visitors' page and their own parts in its
 * slots is the page a whole render gives them (PERSONAL_PAGE_SLOTS off), and costs the session
 * lookup and one query.
 */

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url, { PAGE_CACHE_TTL_MS: '600000' });
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const settings = () => env.services.config.cache as { personalSlots: boolean };
/** A new-comment form's one-time key is random in each render. */
const normalized = (page: string) => page.replace(/name="key" value="[0-9a-f-]{36}"/g, 'name="key" value="KEY"');

async function bothWays(client: WebClient, path: string): Promise<{ whole: string; slotted: string }> {
  settings().personalSlots = false;
  const whole = await client.get(path);
  settings().personalSlots = true;
  const slotted = await client.get(path);
  return { whole: normalized(whole.text), slotted: normalized(slotted.text) };
}

async function discussedListing(): Promise<{ slug: string; people: Voter[] }> {
  const tag = Math.random().toString(36).slice(2, 8);
  const id = await insertLiveListing(db(), { name: `Slots <b>"${tag}"</b>`, url: `https://${tag}.example.com/`, votes: 3 });
  const { slug } = (await db()('listings').where({ id }).first('slug'))!;
  const people = await voters(db(), env.baseUrl, 3);
  const [reader, other] = people;
  const at = new Date();
  const [mine, theirs] = await db()('comments')
    .insert([
      { listing_id: id, user_id: reader!.id, body: 'Mine, <script>"still editable"</script>', body_hash: `${tag}-1`, created_at: at },
      { listing_id: id, user_id: other!.id, body: 'Theirs <!--p:nav:-->', body_hash: `${tag}-2`, votes: 1, created_at: at },
    ])
    .returning('id');
  await db()('comments').insert({
    listing_id: id,
    user_id: other!.id,
    parent_id: mine!.id,
    body: 'A reply',
    body_hash: `${tag}-3`,
    created_at: at,
  });
  await db()('comment_votes').insert({ comment_id: theirs!.id, user_id: reader!.id, created_at: at });
  await db()('listings').where({ id }).update({ comment_count: 3 });
  await db()('votes').insert({ listing_id: id, user_id: reader!.id, created_at: at });
  await db()('listing_followers').insert({ listing_id: id, user_id: reader!.id, created_at: at });
  return { slug, people };
}

test.serial('the listing page from the kept copy and slots is the whole render, for a voter, a follower and a commenter', async (t) => {
  const { slug, people } = await discussedListing();
  const path = `/listings/${slug}`;
  const visitorPage = await new WebClient(env.baseUrl).get(path);
  t.true(slotsOf(visitorPage.text).length >= 6, 'the visitors’ page marks its personal parts');
  for (const person of people) {
    const { whole, slotted } = await bothWays(person.client, path);
    t.false(whole.includes('<!--p:'), 'a whole render has no slots');
    t.is(slotted, whole);
  }
  const mine = await people[0]!.client.get(path);
  t.is(mine.headers.get('cache-control'), 'private, no-store');
  t.is(mine.headers.get('etag'), null);
  t.is(mine.$(`#vote-${slug}`).attr('data-vote-state'), 'voted');
  t.is(mine.$('.follow').attr('data-following'), 'true');
  t.is(mine.$('form[action$="/comment-unvote"]').length, 1);
  t.is(mine.$('form[action$="/comment-delete"]').length, 1);
  t.true(mine.$('textarea[id^="edit-"]').text().startsWith('Mine, <script>'));
});

test.serial(
  'a signed-in listing page costs the session lookup and one query, for a voter and for someone shown the Vote button',
  async (t) => {
    const { slug, people } = await discussedListing();
    const path = `/listings/${slug}`;
    for (const [person, state] of [
      [people[0]!, 'voted'],
      [people[2]!, 'none'],
    ] as const) {
      await person.client.get(path);
      const queries: string[] = [];
      // The workflow-start dispatcher and the page counters' flush use the same pool in the background: their queries are not the page's.
      const count = (q: { sql: string }) => void (/\b(workflow_starts|vote_button_views)\b/.test(q.sql) || queries.push(q.sql));
      db().on('query', count);
      try {
        const page = await person.client.get(path);
        t.is(page.status, 200);
        t.is(page.$(`#vote-${slug}`).attr('data-vote-state'), state);
      } finally {
        db().off('query', count);
      }
      t.true(queries.length <= 2, queries.join('\n'));
    }
  },
);

test('a slot marker takes only id-like arguments, and user text cannot make one', (t) => {
  t.throws(() => slot('nav', '--><script>'));
  t.deepEqual(slotsOf(html`${'<!--p:nav:-->x<!--/p-->'}`.value), []);
});

test('a page cut once at its slots joins back with the parts (text or pieces around a token) in place, multi-byte text included, and is cut only once', (t) => {
  const page = Buffer.from(
    `<p>Café ✓</p>${slot('nav', '', 'links').value}<p>日本</p>${slot('vote', 'a1', 'x').value}${slot('c', '2.0.visible').value}`,
  );
  const split = splitPage(page);
  t.is(splitPage(page), split);
  t.deepEqual(
    split.slots.map((s) => s.kind),
    ['nav', 'vote', 'c'],
  );
  t.is(joinSlots(split, ['<b>ñ</b>', '', '🙂']).toString(), '<p>Café ✓</p><b>ñ</b><p>日本</p>🙂');
  const pieced = { pieces: ['<a>', 'ü', '</a>'].map((p) => Buffer.from(p)), between: Buffer.from('TOKEN') };
  t.is(joinSlots(split, ['', pieced, '']).toString(), '<p>Café ✓</p><p>日本</p><a>TOKENüTOKEN</a>');
  const bigger = Buffer.alloc(1000, 'x');
  const body = joinSlots(split, [pieced, '', 'é'], (size) => bigger.subarray(0, size));
  t.is(body.toString(), '<p>Café ✓</p><a>TOKENüTOKEN</a><p>日本</p>é', 'written into the buffer it is given, exactly filled');
});
