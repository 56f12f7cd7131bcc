import test from 'ava';
import { XMLParser } from 'fast-xml-parser';
import ICAL from 'ical.js';
import { request, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';

// What a strict feed reader and calendar expect: Atom feeds with an <author>, image enclosures
// typed with real MIME types (image/jpeg, not image/jpg; an image of unknown type left out), an
// empty feed's <updated> the site's start rather than 1970, and a launch calendar that is valid
// per RFC 5545 even with no launch scheduled (one component at least).

let env: TestEnv;
const db = () => env.services.db;
const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' });
const feedOf = async (path: string) => xml.parse((await request(env, 'GET', path)).text).feed;

test.before(async () => {
  env = await startTestEnv(import.meta.url, { BROWSE_CACHE_TTL_MS: '0' });
});
test.after.always(() => env?.close());

test.serial('with nothing live yet: the feeds are dated from the site’s start and the calendar is still a valid one', async (t) => {
  const started = (await db()('sites').where({ key: 'main' }).first('created_at'))!.created_at as Date;
  for (const path of ['/feeds/launches.xml', '/feeds/updates.xml', '/categories/ai/feed.xml']) {
    const feed = await feedOf(path);
    t.is(Date.parse(feed.updated), started.getTime(), `${path} updated`);
    t.is(feed.author.name, 'Listing Directory', `${path} has an author`);
  }
  const ics = (await request(env, 'GET', '/launches.ics')).text;
  const calendar = new ICAL.Component(ICAL.parse(ics));
  t.is(calendar.getAllSubcomponents('vevent').length, 0);
  t.true(calendar.getAllSubcomponents().length >= 1, 'RFC 5545: a calendar holds one component at least');
  t.is(calendar.getFirstSubcomponent('vtimezone')?.getFirstPropertyValue('tzid'), 'UTC');
});

test.serial('image enclosures carry real MIME types; an image of unknown type is left out', async (t) => {
  const jpeg = await insertLiveListing(db(), { name: 'Jpeg Co', url: 'https://jpeg.example/' });
  await db()('listings').where({ id: jpeg }).update({ image_url: '/media/images/abc.jpg' });
  const unknown = await insertLiveListing(db(), { name: 'Odd Co', url: 'https://odd.example/' });
  await db()('listings').where({ id: unknown }).update({ image_url: 'https://cdn.odd.example/picture' });
  const plain = await insertLiveListing(db(), { name: 'Card Co', url: 'https://card.example/' });

  const entries = [(await feedOf('/feeds/launches.xml')).entry].flat();
  const enclosure = (name: string) => {
    const entry = entries.find((e: any) => (e.title['#text'] ?? e.title) === name);
    return [entry.link].flat().find((l: any) => l['@rel'] === 'enclosure');
  };
  t.like(enclosure('Jpeg Co'), { '@type': 'image/jpeg', '@href': `${env.baseUrl}/media/images/abc.jpg` });
  t.is(enclosure('Odd Co'), undefined);
  t.is(enclosure('Card Co')['@type'], 'image/png', 'the generated card is a PNG');
  t.truthy(plain);
});
