import { parseFeed } from '@rowanmanning/feed-parser';
import test from 'ava';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { api, request, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';

// Feeds are well-formed XML for any text a person can save: names, headlines, update titles and
// bodies with CDATA terminators (more than one), markup and entities read back as the same text
// through a real XML parser and a feed parser, and inject no element.

let env: TestEnv;
const db = () => env.services.db;

const NAME = 'Evil ]]> Co ]]><injected/> & "quotes" ]]>';
const HEADLINE = 'Headline ]]> with ]]> <b>two</b> terminators';
const UPDATE_TITLE = 'Title ]]> one ]]> two <entry>';
const UPDATE_BODY = 'Body ]]> and ]]> again <script>alert(1)</script> & more';

test.before(async () => {
  env = await startTestEnv(import.meta.url);
  const owner = await env.user();
  const id = await insertLiveListing(db(), { name: NAME, url: 'https://evil.example.net/', ownerId: owner.userId });
  await db()('listings')
    .where({ id })
    .update({ headline: HEADLINE, summary: `Summary ]]> ]]> of ${NAME}`, categories: ['ai'] });
  const update = await api(env, 'POST', `/me/listings/${id}/updates`, { key: owner.key, body: { title: UPDATE_TITLE, body: UPDATE_BODY } });
  if (update.status !== 201) throw new Error(JSON.stringify(update.body));
});
test.after.always(() => env?.close());

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' });

for (const path of ['/feeds/launches.xml', '/categories/ai/feed.xml', '/feeds/updates.xml']) {
  test(`${path} stays well-formed with hostile text and reads it back unchanged`, async (t) => {
    const res = await request(env, 'GET', path);
    t.is(res.status, 200);
    t.is(XMLValidator.validate(res.text), true, res.text);
    const parsed = xml.parse(res.text).feed;
    const entries = [parsed.entry].flat();
    t.is(entries.length, 1, 'no injected entry');
    t.false(res.text.includes('<injected/>'), 'no injected element');

    const feed = parseFeed(res.text);
    t.is(feed.items.length, 1);
    const [item] = feed.items;
    if (path === '/feeds/updates.xml') {
      t.is(item!.title, `${NAME}: ${UPDATE_TITLE}`);
      t.true(item!.content!.includes(UPDATE_BODY), item!.content!);
      t.false(res.text.includes('<script>'), 'the body is escaped HTML in the XML');
    } else {
      t.is(item!.title, NAME);
      t.is(item!.description, HEADLINE);
    }
  });
}

test('the JSON feed carries the same text as plain strings', async (t) => {
  const res = await request(env, 'GET', '/feeds/launches.json');
  const item = JSON.parse(res.text).items[0];
  t.is(item.title, NAME);
  t.is(item.summary, HEADLINE);
});
