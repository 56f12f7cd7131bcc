import { randomBytes } from 'node:crypto';
import test from 'ava';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { displayName } from '../../src/domain/display-names.ts';
import { insertDraft } from '../../src/domain/drafts/drafts.ts';
import { addWeeks, isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { dayText, weekOfText, weekText } from '../../src/domain/time/week-words.ts';
import { evidenceText } from '../../src/web/evidence-text.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertDraftListing, insertLiveListing } from '../helpers/listings.ts';
import { checkout } from '../helpers/orders.ts';
import { WebClient } from '../helpers/web.ts';

// The words a founder reads: weeks by their dates (never 2026-W52), names from one table, evidence
// as the page showed it, a badge that says what is true, the stats page before a launch, the
// header and the links of the order and draft pages.

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const PASSWORD = 'founder words password';
const ISO_WEEK = /\d{4}-W\d{2}/;

async function founder() {
  const email = `words-${randomBytes(4).toString('hex')}@example.com`;
  const user = await createVerifiedUser(db(), email, PASSWORD);
  const client = new WebClient(env.baseUrl);
  if ((await client.signIn(email, PASSWORD)).status !== 303) throw new Error('sign-in failed');
  return { user, client, email };
}

const slugOf = async (id: number) => (await db()('listings').where({ id }).first('slug'))!.slug;

test('display names come from one table, never a title-cased slug', (t) => {
  t.is(displayName('category', 'ai'), 'AI');
  t.is(displayName('category', 'hr'), 'HR');
  t.is(displayName('category', 'developer-tools'), 'Developer tools');
  t.is(displayName('section', 'faqs'), 'FAQs');
  t.is(displayName('platform', 'github'), 'GitHub');
  t.is(displayName('platform', 'twitter'), 'X (Twitter)');
  t.is(displayName('platform', 'linkedin'), 'LinkedIn');
});

test('evidence reads as the text of the page, not its HTML or JSON-LD', (t) => {
  t.is(evidenceText('"name": "Acme Labs"'), 'Acme Labs');
  t.is(evidenceText('"mainEntity": {"name":"Is it free?"}'), 'Is it free?');
  t.is(evidenceText('"logo": {"@type":"ImageObject","url":"https://acme.example/logo.png"}'), 'https://acme.example/logo.png');
  t.is(
    evidenceText('"description": "Forms that \\"just work\\" for teams that ship every single day and want…'),
    'Forms that "just work" for teams that ship every single day and want',
  );
  t.is(evidenceText('<meta name="description" content="Fast forms for teams">'), 'Fast forms for teams');
  t.is(evidenceText('<title>Acme | Forms</title>'), 'Acme | Forms');
  t.is(evidenceText('<a href="https://x.com/acme" aria-label="Acme on X"><svg></svg></a>'), 'Acme on X');
  t.is(evidenceText('Based in Cork'), 'Based in Cork');
});

test('no ISO week label on the front page, /launches, a listing page and its stats page; weeks read by their dates', async (t) => {
  const { user, client } = await founder();
  const id = await insertLiveListing(db(), { name: 'Weekday Words', ownerId: user.id, url: 'https://weekday-words.example.com/' });
  await db()('listings')
    .where({ id })
    .update({
      categories: ['ai', 'hr'],
      socials: JSON.stringify({
        github: 'https://github.com/weekday',
        twitter: 'https://x.com/weekday',
        linkedin: 'https://www.linkedin.com/company/weekday',
      }),
    });
  const slug = await slugOf(id);
  const monday = isoWeekStart(new Date());
  for (const path of ['/', '/launches', `/listings/${slug}`, `/account/listings/${id}/stats`]) {
    const page = await client.get(path);
    t.is(page.status, 200, path);
    t.notRegex(page.text, ISO_WEEK, path);
  }
  const launches = await client.get('/launches');
  t.is(launches.$('h1').text(), `Launches of the ${weekOfText(monday)}`);
  t.is(launches.$('table.ranking caption').text(), `Ranking of ${weekText(monday)}`);
  // The previous week's link names it by its Monday, and the page it leads to reads it.
  const previous = launches.$('.pager a').first().attr('href')!;
  t.is(previous, `/launches?week=${addWeeks(monday, -1)}`);
  t.is((await client.get(previous)).$('h1').text(), `Launches of the ${weekOfText(addWeeks(monday, -1))}`);

  const listing = await client.get(`/listings/${slug}`);
  t.regex(listing.$('#vote-audit').text(), new RegExp(`In its launch week, ${weekText(monday)}, `));
  t.is(listing.$('#vote-audit a[href="/ranking-policy"]').length, 1);
  const audit = listing.$('#vote-audit').clone();
  audit.find('aside').remove();
  t.notRegex(audit.text(), /votes_|network_cluster|_/);
  t.regex(listing.$('#vote-audit aside').text(), /^For developers/);
  // Names from the table: categories and platforms as people write them.
  const text = listing.$('main').text();
  for (const name of ['AI', 'HR', 'GitHub', 'X (Twitter)', 'LinkedIn']) t.true(text.includes(name), name);
  t.notRegex(text, /\bAi\b|\bHr\b|\bgithub\b(?!\.com)|\btwitter\b(?!\.)/);

  const stats = await client.get(`/account/listings/${id}/stats`);
  t.regex(stats.$('p.lead').text(), new RegExp(`^In its launch week, ${weekText(monday)} \\(from `));

  // The front page names this week by its dates.
  const home = await client.get('/');
  t.true(home.text.includes(`The full ranking of the ${weekOfText(monday)}`));
});

test('the badge says what is true: Launching on before the launch, Launched on once live', async (t) => {
  const scheduledId = await insertDraftListing(db(), { name: 'Badge Soon', url: 'https://badge-soon.example.com/' });
  const week = addWeeks(isoWeekStart(new Date()), 3);
  await db()('listings').where({ id: scheduledId }).update({ status: 'scheduled', plan: 'free', launch_week: week });
  const soon = await fetch(`${env.baseUrl}/badges/${await slugOf(scheduledId)}.svg`).then((r) => r.text());
  t.regex(soon, />LAUNCHING ON</);
  t.regex(soon, new RegExp(`aria-label="Launching on [^"]+ in the week of ${dayText(week)}"`));
  t.notRegex(soon, /FEATURED|Featured/);

  const waitingId = await insertDraftListing(db(), { name: 'Badge Waiting', url: 'https://badge-waiting.example.com/' });
  await db()('listings').where({ id: waitingId }).update({ status: 'awaiting_badge', plan: 'free' });
  const waiting = await fetch(`${env.baseUrl}/badges/${await slugOf(waitingId)}.svg`).then((r) => r.text());
  t.regex(waiting, /aria-label="Launching on [^"]+ soon"/);

  const liveId = await insertLiveListing(db(), { name: 'Badge Live', url: 'https://badge-live.example.com/', votes: 2 });
  await db()('listings').where({ id: liveId }).update({ plan: 'free' });
  const live = await fetch(`${env.baseUrl}/badges/${await slugOf(liveId)}.svg`).then((r) => r.text());
  t.regex(live, />LAUNCHED ON</);
  t.regex(live, /aria-label="Launched on [^"]+: 2 votes/);
  t.notRegex(live, /FEATURED|Featured/);
});

test('the stats page of a listing that has not launched says what it will count, without empty charts', async (t) => {
  const { user, client } = await founder();
  const scheduled = await insertDraftListing(db(), { name: 'Counted Later', ownerId: user.id, url: 'https://counted-later.example.com/' });
  const week = addWeeks(isoWeekStart(new Date()), 2);
  await db()('listings').where({ id: scheduled }).update({ status: 'scheduled', plan: 'free', launch_week: week });
  const page = await client.get(`/account/listings/${scheduled}/stats`);
  t.is(page.status, 200);
  const lead = page.$('p.lead').text();
  t.is(
    lead,
    `Counted Later launches in ${weekText(week)}. From Monday ${dayText(week)}, 00:00 UTC, this page counts its launch week: page views by people, clicks through to your website, votes and new followers, day by day.`,
  );
  t.notRegex(page.$('main').text(), /had 0|0 page views/);
  t.is(page.$('figure.chart').length, 0);
  t.is(page.$('table').length, 0);
  t.notRegex(page.text, ISO_WEEK);

  const draft = await insertDraftListing(db(), { name: 'Not Yet', ownerId: user.id, url: 'https://not-yet.example.com/' });
  const none = await client.get(`/account/listings/${draft}/stats`);
  t.regex(none.$('p.lead').text(), /^Not Yet has not launched yet\. Once it has a launch week, this page counts that week: /);
  t.is(none.$('figure.chart').length, 0);
});

test('signed in, the header starts with Your listings; an order page links back to the orders and the listing', async (t) => {
  const { user, client } = await founder();
  const home = await client.get('/');
  t.is(home.$('header nav ul a').first().text(), 'Your listings');
  t.is(home.$('header nav ul a').first().attr('href'), '/account/listings');
  t.is((await new WebClient(env.baseUrl).get('/')).$('header nav ul a:contains("Your listings")').length, 0, 'not for visitors');

  const { key } = await createApiKey(db(), user.id, 'test', ['account:read', 'orders:write']);
  const listingId = await insertLiveListing(db(), { name: 'Ordered Words', ownerId: user.id, url: 'https://ordered-words.example.com/' });
  const order = (
    await checkout(env, key, { items: [{ product: 'featured', listing_id: listingId, options: { weeks: 2 } }], billing_country: 'US' })
  ).body;
  const page = await client.get(`/account/orders/${order.number}`);
  t.is(page.status, 200);
  t.is(page.$('main a[href="/account/orders"]').first().text(), 'All your orders');
  t.is(page.$(`main a[href="/account/listings/${listingId}"]`).first().text(), 'Back to Ordered Words');
  for (const path of ['/account/orders', `/account/orders/${order.number}`])
    t.notRegex((await client.get(path)).$('main').text(), ISO_WEEK, path);
});

test('after "already listed", the draft page offers the claim, not Submit listing; evidence shows the page’s text', async (t) => {
  const { user, client } = await founder();
  await insertLiveListing(db(), { name: 'Heldco', url: 'https://heldco.io/' });
  const draft = await insertDraft(db(), { ownerId: user.id, siteId: 1, url: 'https://www.heldco.io/' });
  const fields = {
    name: 'Heldco again',
    headline: 'Drafted headline',
    summary: 'Drafted summary.',
    logo_url: null,
    image_url: null,
    facts: { location: 'Cork' },
    socials: { github: 'https://github.com/heldco' },
    faqs: [],
    categories: ['ai'],
    contact_email: null,
  };
  const evidence = {
    name: { source_url: 'https://www.heldco.io/', snippet: '"name": "Heldco again"' },
    headline: { source_url: 'https://www.heldco.io/', snippet: '<meta name="description" content="Drafted headline">' },
    'facts.location': { source_url: 'https://www.heldco.io/about', snippet: 'Based in Cork' },
  };
  await db()('drafts')
    .where({ id: draft.id })
    .update({ status: 'ready', fields: JSON.stringify(fields), evidence: JSON.stringify(evidence) });

  const _csrf = await client.csrfFrom(`/account/drafts/${draft.id}`);
  const refused = await client.post(`/account/drafts/${draft.id}`, { _csrf, then: 'submit', name: 'Heldco again' });
  t.is(refused.status, 409);
  t.regex(refused.$('[data-code=already_listed]').text(), /Your company is listed here already/);
  t.is(refused.$('button[value=submit]').length, 0, 'no Submit listing after already listed');
  const again = await client.get(`/account/drafts/${draft.id}`);
  t.is(again.status, 200);
  t.is(again.$('button[value=submit]').length, 0, 'nor when the page is opened again');
  t.regex(again.$('[data-code=already_listed] a').attr('href') ?? '', /^\/account\/claims\/new\?slug=heldco/);

  const shown = again
    .$('[data-evidence] q')
    .map((_, q) => again.$(q).text())
    .get();
  t.true(shown.includes('Heldco again'), shown.join(' | '));
  t.true(shown.includes('Drafted headline'), shown.join(' | '));
  t.false(
    shown.some((s) => /[<>]|"\w+":/.test(s)),
    shown.join(' | '),
  );
  t.true(again.$('main').text().includes('GitHub: https://github.com/heldco'));
  t.true(again.$('label.check').text().includes('AI'));
});
