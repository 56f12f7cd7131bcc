import { randomBytes } from 'node:crypto';
import test from 'ava';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { insertDraft } from '../../src/domain/drafts/drafts.ts';
import { LISTING_STATUSES } from '../../src/domain/fields.ts';
import { addWeeks, isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { weekText } from '../../src/web/week-words.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertDraftListing, insertLiveListing } from '../helpers/listings.ts';
import { WebClient, type WebResponse } from '../helpers/web.ts';

// The owner's listing pages without a browser: ownership, bad and hostile input, what a save
// reports, statuses in words, the draft review's in-place edit and the already-listed answer.

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const PASSWORD = 'owner home forms password';

async function signedIn() {
  const email = `home-${randomBytes(4).toString('hex')}@example.com`;
  const user = await createVerifiedUser(db(), email, PASSWORD);
  const client = new WebClient(env.baseUrl);
  await client.signIn(email, PASSWORD);
  return { user, client, _csrf: await client.csrfFrom('/account/listings') };
}

async function ownListing(ownerId: number, name = `Acme ${randomBytes(3).toString('hex')}`) {
  return insertLiveListing(db(), {
    name,
    ownerId,
    url: `https://${name.toLowerCase().replace(/\W+/g, '')}.example.com/`,
    headline: 'Rockets for everyone',
  });
}

/** The error summary's messages and the fields they link. */
const summary = (res: WebResponse) =>
  res
    .$('.error-summary li')
    .map((_, li) => `${res.$(li).find('a').attr('href') ?? ''} ${res.$(li).text()}`)
    .get();

const versions = (listingId: number) => db()('listing_versions').where({ listing_id: listingId });

test('another owner’s listing and odd ids are a 404 page on every owner page, GET and POST', async (t) => {
  const { user } = await signedIn();
  const listing = await ownListing(user.id);
  const { client, _csrf } = await signedIn();
  for (const path of ['', '/edit', '/updates', '/milestones', '/launch', '/story']) {
    const res = await client.get(`/account/listings/${listing}${path}`);
    t.is(res.status, 404, path);
    t.regex(res.text, /There is no page at this address|not found/i, path);
    for (const bad of ['0', 'abc', '99999999999', '1e3'])
      t.is((await client.get(`/account/listings/${bad}${path}`)).status, 404, `${bad}${path}`);
  }
  t.is((await client.post(`/account/listings/${listing}/edit`, { _csrf, headline: 'Mine now' })).status, 404);
  t.is((await client.post(`/account/listings/${listing}/updates`, { _csrf, title: 'Hi', body: 'There' })).status, 404);
  t.is((await client.post(`/account/listings/${listing}/milestones`, { _csrf, date: '2026-01-05', title: 'Hi' })).status, 404);
  const [milestone] = await db()('milestones').insert({ listing_id: listing, date: '2026-01-05', title: 'Theirs' }).returning('id');
  t.is((await client.post(`/account/listings/${listing}/milestones/${milestone.id}/delete`, { _csrf })).status, 404);
  t.is((await client.post(`/account/listings/${listing}/milestones/abc/delete`, { _csrf })).status, 404);
  t.like(await db()('listings').where({ id: listing }).first(), { headline: 'Rockets for everyone' });
  t.is((await versions(listing)).length, 0);
  t.is((await db()('listing_updates').where({ listing_id: listing })).length, 0);
  t.is((await db()('milestones').where({ listing_id: listing })).length, 1);
  // Signed out: the sign-in page, then back.
  const anonymous = await new WebClient(env.baseUrl).get(`/account/listings/${listing}/edit`);
  t.is(anonymous.status, 303);
  t.regex(anonymous.location ?? '', /^\/signin\?return_to=/);
});

test('the edit form refuses bad fields by name, keeps what was typed and changes nothing', async (t) => {
  const { user, client, _csrf } = await signedIn();
  const listing = await ownListing(user.id);
  const edit = `/account/listings/${listing}/edit`;
  const cases: [Record<string, string>, string, RegExp][] = [
    [{ name: '' }, '#f-name', /Must not be empty/],
    [{ headline: 'x'.repeat(71) }, '#f-headline', /at most 70 characters/],
    [{ contact_email: 'not an email' }, '#f-contact_email', /email address/],
    [{ founded_year: 'nineteen' }, '#f-founded_year', /whole number/],
    [{ founded_year: '1500' }, '#f-founded_year', /between 1800 and 2100/],
    [{ 'social-github': 'https://evil.example/acme' }, '#f-social-github', /github/],
    [{ 'faq-1-question': 'Does it fly?' }, '#f-faq-1-answer', /Must not be empty/],
    [{ headline: 'one\u0007bell' }, '#f-headline', /control characters/],
  ];
  for (const [form, href, message] of cases) {
    const res = await client.post(edit, { _csrf, ...form });
    t.is(res.status, 400, JSON.stringify(form));
    const [problem] = summary(res);
    t.true(problem?.startsWith(href), `${JSON.stringify(form)}: ${problem}`);
    t.regex(problem ?? '', message, JSON.stringify(form));
    const [name, value] = Object.entries(form)[0]!;
    const control = res.$(`[name="${name}"]`);
    t.is(control.is('textarea') ? control.text() : control.attr('value'), value, 'what was typed stays');
    t.is(res.$(href).attr('aria-invalid'), 'true', href);
  }
  t.is((await versions(listing)).length, 0);
  t.like(await db()('listings').where({ id: listing }).first(), { headline: 'Rockets for everyone' });
  // A field that is not one of the form's is ignored, not stored.
  const sneaky = await client.post(edit, { _csrf, status: 'live', owner_id: '1' });
  t.is(sneaky.status, 303);
  t.regex(sneaky.location!, /\?saved=none$/);
  t.regex((await client.get(sneaky.location!)).$('[data-saved=none]').text(), /Nothing changed/);
});

test('Save reports what changed as a word diff; the history keeps every version; apply_to reports each site', async (t) => {
  const { user, client, _csrf } = await signedIn();
  const listing = await ownListing(user.id, 'Diffco');
  const edit = `/account/listings/${listing}/edit`;
  const page = await client.get(edit);
  const current = (name: string) => page.$(`[name="${name}"]`).attr('value') ?? page.$(`[name="${name}"]`).text();
  t.is(current('headline'), 'Rockets for everyone');
  t.is(current('name'), 'Diffco');

  const first = await client.post(edit, {
    _csrf,
    name: 'Diffco',
    headline: 'Rockets for <b>everyone</b> on Earth',
    location: 'Dublin',
    founders: 'Ada\nGrace',
  });
  t.is(first.status, 303);
  const saved = await client.get(first.location!);
  const notice = saved.$('[data-saved]');
  t.regex(notice.text(), /Saved\. What changed:/);
  t.deepEqual(
    notice
      .find('[data-change]')
      .map((_, li) => saved.$(li).attr('data-change'))
      .get()
      .sort(),
    ['founders', 'headline', 'location'],
  );
  t.deepEqual(
    notice
      .find('[data-change=headline] ins')
      .map((_, e) => saved.$(e).text())
      .get(),
    ['<b>everyone</b>', ' ', 'on', ' ', 'Earth'],
  );
  t.deepEqual(
    notice
      .find('[data-change=headline] del')
      .map((_, e) => saved.$(e).text())
      .get(),
    ['everyone'],
  );
  t.false(saved.text.includes('<b>everyone</b> on'), 'owner text is escaped');
  t.like(await db()('listings').where({ id: listing }).first(), { headline: 'Rockets for <b>everyone</b> on Earth' });
  t.deepEqual((await db()('listings').where({ id: listing }).first())!.facts, { location: 'Dublin', founders: ['Ada', 'Grace'] });

  // Emptying a fact clears it; the history lists both versions, newest first.
  const second = await client.post(edit, {
    _csrf,
    name: 'Diffco',
    headline: 'Rockets for <b>everyone</b> on Earth',
    location: '',
    founders: 'Ada\nGrace',
  });
  const history = await client.get(second.location!);
  t.deepEqual(
    history
      .$('ol.versions > li')
      .first()
      .find('[data-change]')
      .map((_, li) => history.$(li).attr('data-change'))
      .get(),
    ['location'],
  );
  t.is(history.$('ol.versions > li').length, 2);
  t.regex(history.$('ol.versions > li').first().text(), /Location:\s*Dublin\s*\(now empty\)/);

  // apply_to: a site where the company has no listing says so; a listing of the company on Makers Weekly gets the texts.
  const lonely = await client.post(edit, { _csrf, name: 'Diffco', headline: 'Rockets', apply_to: 'makers' });
  const lonelyPage = await client.get(lonely.location!);
  t.is(lonelyPage.$('[data-site=makers]').attr('data-applied'), 'no_listing');
  t.regex(lonelyPage.$('[data-site=makers]').text(), /Makers Weekly: no listing of this company there/);
  const twin = await insertDraftListing(db(), {
    name: 'Diffco Makers',
    site: 'makers',
    ownerId: user.id,
    url: 'https://diffco.example.com/',
  });
  const applied = await client.post(edit, { _csrf, name: 'Diffco', headline: 'Rockets', apply_to: ['makers', 'nope'] });
  t.regex((await client.get(applied.location!)).$('[data-site=makers]').attr('data-applied') ?? '', /updated/);
  t.is((await db()('listings').where({ id: twin }).first('headline'))!.headline, 'Rockets');
  // A forged applied list in the URL shows nothing that is not a site and a status.
  const forged = await client.get(`${edit}?saved=none&applied=${encodeURIComponent('<script>:updated,makers:<b>,makers:updated')}`);
  t.deepEqual(
    forged
      .$('[data-site]')
      .map((_, li) => forged.$(li).attr('data-site'))
      .get(),
    ['makers'],
  );
  t.false(forged.text.includes('<script>:'));
});

test('every status reads as a sentence with its next step; API names only in the developers’ aside', async (t) => {
  const { user, client } = await signedIn();
  const listing = await insertDraftListing(db(), { name: 'Statusco', ownerId: user.id, url: 'https://statusco.example.com/' });
  const monday = addWeeks(isoWeekStart(new Date()), 3);
  for (const status of LISTING_STATUSES) {
    await db()('listings')
      .where({ id: listing })
      .update({
        status,
        launch_week: status === 'scheduled' || status === 'live' ? monday : null,
        plan: status === 'draft' ? null : 'free',
      });
    const home = await client.get(`/account/listings/${listing}`);
    t.is(home.status, 200, status);
    home.$('aside').remove();
    const text = home.$('main').text();
    t.notRegex(text, /\bdraft\b|_/i, `${status}: ${/.{0,80}(\bdraft\b|_).{0,40}/is.exec(text)?.[0]}`);
    t.regex(home.$('[data-field=state]').text(), /^Your (listing|free launch) .+\.$/, status);
    t.truthy(home.$('[data-field=action] a').attr('href'), status);
    const listings = await client.get('/account/listings');
    t.is(
      listings.$('tbody tr[data-kind=listing] td').eq(1).text(),
      home.$('[data-field=state]').text(),
      `${status}: the list and the home agree`,
    );
    t.is(listings.$('tbody tr[data-kind=listing] a').first().text(), 'Statusco', 'named, never "listing N"');
  }
  await db()('listings').where({ id: listing }).update({ status: 'scheduled', launch_week: monday });
  const scheduled = await client.get(`/account/listings/${listing}`);
  t.is(scheduled.$('[data-field=launch-week]').text(), weekText(monday));
  t.is(weekText('2026-12-21'), 'Week 52 · 21–27 Dec 2026');
  t.is(weekText('2026-12-28'), 'Week 53 · 28 Dec 2026 – 3 Jan 2027');
  t.is(weekText('2026-09-28'), 'Week 40 · 28 Sep – 4 Oct 2026');
});

test('updates and milestones: bad input is a 400 at its field and stores nothing; good input is listed', async (t) => {
  const { user, client, _csrf } = await signedIn();
  const listing = await ownListing(user.id);
  const updates = `/account/listings/${listing}/updates`;
  for (const [form, href] of [
    [{ title: '', body: 'Body' }, '#f-title'],
    [{ title: 'x'.repeat(121), body: 'Body' }, '#f-title'],
    [{ title: 'Title', body: '' }, '#f-body'],
    [{ title: 'Title', body: 'x'.repeat(5001) }, '#f-body'],
  ] as const) {
    const res = await client.post(updates, { _csrf, ...form });
    t.is(res.status, 400, JSON.stringify(form).slice(0, 60));
    t.true(summary(res)[0]?.startsWith(href), summary(res)[0]);
  }
  t.is((await db()('listing_updates').where({ listing_id: listing })).length, 0);
  const posted = await client.post(updates, { _csrf, title: 'Launch <day>', body: 'We are live.' });
  t.is(posted.status, 303);
  const list = await client.get(posted.location!);
  t.is(list.$('[data-update] h3').text(), 'Launch <day>');

  const milestones = `/account/listings/${listing}/milestones`;
  for (const [form, href] of [
    [{ date: '2026-02-30', title: 'Founded' }, '#f-date'],
    [{ date: '', title: 'Founded' }, '#f-date'],
    [{ date: '2026-02-03', title: '' }, '#f-title'],
    [{ date: '2026-02-03', title: 'Founded', url: 'http://plain.example/' }, '#f-url'],
    [{ date: '2026-02-03', title: 'Founded', url: 'javascript:alert(1)' }, '#f-url'],
  ] as const) {
    const res = await client.post(milestones, { _csrf, ...form });
    t.is(res.status, 400, JSON.stringify(form));
    t.true(summary(res)[0]?.startsWith(href), `${JSON.stringify(form)}: ${summary(res)[0]}`);
  }
  const added = await client.post(milestones, { _csrf, date: '2026-02-03', title: 'Founded', url: 'https://acme.example/news' });
  t.is(added.status, 303);
  const shown = await client.get(added.location!);
  const item = shown.$('[data-milestone]');
  t.is(item.length, 1);
  t.regex(item.text(), /2026-02-03\s+Founded/);
  const deleted = await client.post(`${milestones}/${item.attr('data-milestone')}/delete`, { _csrf });
  t.is(deleted.status, 303);
  t.is((await client.get(deleted.location!)).$('[data-milestone]').length, 0);
  t.is((await client.post(`${milestones}/${item.attr('data-milestone')}/delete`, { _csrf })).status, 404, 'deleted once');
});

/** A draft of the user, ready for review with these fields (as the workflow leaves it). */
async function readyDraft(ownerId: number, url: string, name: string) {
  const draft = await insertDraft(db(), { ownerId, siteId: 1, url });
  const fields = {
    name,
    headline: 'Drafted headline',
    summary: 'Drafted summary.',
    logo_url: null,
    image_url: null,
    facts: { location: 'Cork' },
    socials: {},
    faqs: [],
    categories: ['finance'],
    contact_email: null,
  };
  const evidence = {
    name: { source_url: url, snippet: `<title>${name}</title>` },
    'facts.location': { source_url: `${url}about`, snippet: 'Based in Cork' },
  };
  await db()('drafts')
    .where({ id: draft.id })
    .update({ status: 'ready', fields: JSON.stringify(fields), evidence: JSON.stringify(evidence) });
  return draft.id;
}

test('the draft review edits fields in place with their evidence, refuses bad input, and submits', async (t) => {
  const { user, client, _csrf } = await signedIn();
  const id = await readyDraft(user.id, 'https://reviewco.io/', 'Reviewco');
  const page = await client.get(`/account/drafts/${id}`);
  // The evidence reads as the page's text, not its markup.
  t.regex(page.$('#f-name-hint').text(), /Found on reviewco\.io:\s*Reviewco$/);
  t.regex(page.$('#f-location-hint').text(), /Found on reviewco\.io\/about: Based in Cork/);
  t.true(page.$('input[name=categories][value=finance]').is('[checked]'));

  const reviewCases: [Record<string, string | string[]>, string][] = [
    [{ name: '' }, '#f-name'],
    [{ name: 'Reviewco', headline: 'x'.repeat(71) }, '#f-headline'],
    [{ name: 'Reviewco', categories_shown: '1', categories: ['ai', 'data', 'design', 'hr', 'sales', 'games'] }, '#f-categories'],
    [{ name: 'Reviewco', categories_shown: '1', categories: ['Not a slug!'] }, '#f-categories'],
  ];
  for (const [form, href] of reviewCases) {
    const res = await client.post(`/account/drafts/${id}`, { _csrf, then: 'submit', ...form });
    t.is(res.status, 400, JSON.stringify(form));
    t.true(summary(res)[0]?.startsWith(href), `${JSON.stringify(form)}: ${summary(res)[0]}`);
  }
  t.like(await db()('drafts').where({ id }).first(), { status: 'ready', listing_id: null });

  const save = await client.post(`/account/drafts/${id}`, {
    _csrf,
    then: 'save',
    name: 'Reviewco',
    headline: 'Better headline',
    location: '',
    categories_shown: '1',
    categories: ['finance', 'ai'],
  });
  t.is(save.status, 303);
  const fields = (await db()('drafts').where({ id }).first())!.fields;
  t.like(fields, { headline: 'Better headline', summary: 'Drafted summary.', facts: {}, categories: ['finance', 'ai'] });
  const submitted = await client.post(`/account/drafts/${id}`, {
    _csrf,
    then: 'submit',
    name: 'Reviewco',
    headline: 'Better headline',
    location: '',
    categories_shown: '1',
    categories: ['finance', 'ai'],
  });
  t.is(submitted.status, 303);
  const listing = (await db()('listings').where({ owner_id: user.id }).first())!;
  t.is(submitted.location, `/account/listings/${listing.id}?notice=draft-submitted`);
  t.is(listing.headline, 'Better headline');
  // The draft page of a submitted draft links its listing by name, not by number.
  const after = await client.get(`/account/drafts/${id}`);
  t.is(after.$('main a[href="/account/listings/' + listing.id + '"]').text(), 'Open the listing');
});

test('a company already listed gets the claim link instead of a second listing', async (t) => {
  const { client, _csrf, user } = await signedIn();
  await insertLiveListing(db(), { name: 'Takenco', url: 'https://takenco.io/' });
  const id = await readyDraft(user.id, 'https://www.takenco.io/', 'Takenco again');
  const res = await client.post(`/account/drafts/${id}`, { _csrf, then: 'submit', name: 'Takenco again' });
  t.is(res.status, 409);
  t.regex(res.$('[data-code=already_listed]').text(), /Your company is listed here already/);
  t.regex(res.$('[data-code=already_listed] a').attr('href') ?? '', /^\/account\/claims\/new\?slug=takenco/);
  t.is((await db()('listings').where({ owner_id: user.id })).length, 0);
});

test('the website field takes example.org and adds https:// itself', async (t) => {
  const { user, client, _csrf } = await signedIn();
  const res = await client.post('/account/listings', { _csrf, url: ' 127.0.0.1:9/ ' });
  t.is(res.status, 303);
  const draft = (await db()('drafts').where({ owner_id: user.id }).first())!;
  t.is(draft.url, 'https://127.0.0.1:9/');
  const refused = await client.post('/account/listings', { _csrf, url: 'ftp://example.org/' });
  t.is(refused.status, 400);
  t.regex(refused.$('#f-url-error').text(), /such as example\.org/);
});
