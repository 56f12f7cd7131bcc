import { randomBytes } from 'node:crypto';
import test from 'ava';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';

let env: TestEnv;
let owner: { userId: number; key: string };
let other: { userId: number; key: string };

test.before(async () => {
  env = await startTestEnv(import.meta.url);
  owner = await env.user();
  other = await env.user();
});
test.after.always(() => env?.close());

/** A company domain of its own per test: tests in this file run concurrently. */
const company = (name: string) => `https://www.${name}-${randomBytes(3).toString('hex')}.com/`;

async function listing(fields: { name: string; url: string; site?: string; ownerId?: number; headline?: string }) {
  return insertLiveListing(env.services.db, { ownerId: owner.userId, ...fields });
}

const row = (id: number) => env.services.db('listings').where({ id }).first();
const versions = (id: number) => env.services.db('listing_versions').where({ listing_id: id }).orderBy('id');
const patch = (id: number, body: unknown, key = owner.key, headers: Record<string, string> = {}) =>
  api(env, 'PATCH', `/me/listings/${id}`, { key, body, headers });

test('an edit publishes at once: fields, facts, socials and faqs', async (t) => {
  const id = await listing({ name: 'Acme Rockets', url: company('acme') });
  const res = await patch(id, {
    fields: {
      name: 'Acme Rockets Co',
      headline: '  Rockets for small teams  ',
      summary: 'Reusable rockets launched from a parking lot.',
      seo_title: 'Acme Rockets: rockets for small teams',
      seo_description: 'Reusable rockets.',
      contact_email: 'hello@acme.example',
      founded_year: 2019,
      location: 'Toulouse, France',
      founders: ['Ada Lovelace', 'Grace Hopper'],
      employees: '12',
    },
    socials: { twitter: 'https://x.com/acmerockets#top', github: 'https://github.com/acme-rockets' },
    faqs: [{ question: 'Is it safe?', answer: 'Mostly.' }],
  });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.is(res.body.name, 'Acme Rockets Co');
  t.is(res.body.headline, 'Rockets for small teams');
  t.is(res.body.seo_title, 'Acme Rockets: rockets for small teams');
  t.is(res.body.contact_email, 'hello@acme.example');
  t.deepEqual(res.body.facts, {
    founded_year: 2019,
    location: 'Toulouse, France',
    founders: ['Ada Lovelace', 'Grace Hopper'],
    employees: '12',
  });
  t.deepEqual(res.body.socials, { twitter: 'https://x.com/acmerockets', github: 'https://github.com/acme-rockets' });
  t.deepEqual(res.body.faqs, [{ question: 'Is it safe?', answer: 'Mostly.' }]);
  t.deepEqual(res.body.applied, []);
  t.deepEqual(res.body.milestones, []);

  const mine = await api(env, 'GET', `/me/listings/${id}`, { key: owner.key });
  const { applied: _applied, updated_at: _u, ...view } = res.body;
  const { updated_at: _u2, ...stored } = mine.body;
  t.deepEqual(stored, view);
  const pub = await api(env, 'GET', `/listings/${res.body.slug}`);
  t.is(pub.status, 200);
  t.is(pub.body.headline, 'Rockets for small teams');
  t.deepEqual(pub.body.socials, res.body.socials);

  // null or "" clears; socials and faqs replace all; facts not sent stay.
  const second = await patch(id, {
    fields: { headline: null, location: '', seo_description: '' },
    socials: { linkedin: 'https://www.linkedin.com/company/acme-rockets' },
    faqs: [],
  });
  t.is(second.status, 200, JSON.stringify(second.body));
  t.is(second.body.headline, null);
  t.is(second.body.seo_description, null);
  t.deepEqual(second.body.facts, { founded_year: 2019, founders: ['Ada Lovelace', 'Grace Hopper'], employees: '12' });
  t.deepEqual(second.body.socials, { linkedin: 'https://www.linkedin.com/company/acme-rockets' });
  t.deepEqual(second.body.faqs, []);
  t.is(second.body.summary, 'Reusable rockets launched from a parking lot.');
});

test('every bad input is a 400 naming the field, and nothing changes', async (t) => {
  const id = await listing({ name: 'Strict Co', url: company('strict'), headline: 'Before' });
  const before = await row(id);
  const cases: [unknown, string][] = [
    [{ fields: { headline: 'ok', colour: 'red' } }, 'fields.colour'],
    [{ fields: { headline: 'x'.repeat(71) } }, 'fields.headline'],
    [{ fields: { summary: 'x'.repeat(301) } }, 'fields.summary'],
    [{ fields: { seo_title: 'x'.repeat(71) } }, 'fields.seo_title'],
    [{ fields: { seo_description: 'x'.repeat(161) } }, 'fields.seo_description'],
    [{ fields: { name: '   ' } }, 'fields.name'],
    [{ fields: { headline: 'Two\nlines' } }, 'fields.headline'],
    [{ fields: { seo_title: 'Nul\u0000byte' } }, 'fields.seo_title'],
    [{ fields: { name: null } }, 'fields.name'],
    [{ fields: { founded_year: 'last year' } }, 'fields.founded_year'],
    [{ fields: { founded_year: 1492 } }, 'fields.founded_year'],
    [{ fields: { contact_email: 'not-an-email' } }, 'fields.contact_email'],
    [{ fields: { founders: 'Ada' } }, 'fields.founders'],
    [{ fields: 'headline' }, 'fields'],
    [{ socials: { twitter: 'https://github.com/strict' } }, 'socials.twitter'],
    [{ socials: { twitter: 'http://x.com/strict' } }, 'socials.twitter'],
    [{ socials: { github: 'https://user:pw@github.com/strict' } }, 'socials.github'],
    [{ socials: { twitter: 'https://x.com/intent/tweet?text=hi' } }, 'socials.twitter'],
    [{ socials: { linkedin: 'javascript:alert(1)' } }, 'socials.linkedin'],
    [{ socials: { myspace: 'https://myspace.com/strict' } }, 'socials.myspace'],
    [{ socials: { github: 'https://github.com/' + 'a'.repeat(2100) } }, 'socials.github'],
    [{ socials: ['https://x.com/strict'] }, 'socials'],
    [{ faqs: Array.from({ length: 31 }, (_, i) => ({ question: `Q${i}?`, answer: 'A.' })) }, 'faqs'],
    [{ faqs: [{ question: 'Q?', answer: 'A.', votes: 3 }] }, 'faqs.0.votes'],
    [{ faqs: [{ question: '', answer: 'A.' }] }, 'faqs.0.question'],
    [{ faqs: [{ question: 'Q?', answer: 'A\u0000' }] }, 'faqs.0.answer'],
    [{ fields: { summary: 'NUL \u0000 inside' } }, 'fields.summary'],
    [{ fields: { location: 'Paris\u0000' } }, 'fields.location'],
    [{ faqs: [{ question: 'Q?', answer: 'x'.repeat(2001) }] }, 'faqs.0.answer'],
    [{ fields: { headline: 'ok' }, apply_to: ['makers', 'nowhere'] }, 'apply_to.1'],
    [{ fields: { headline: 'ok' }, apply_to: ['all', 'main'] }, 'apply_to'],
    [{ fields: { headline: 'ok' }, apply_to: [] }, 'apply_to'],
    [{ fields: { headline: 'ok' }, apply_to: 'all' }, 'apply_to'],
    [{ fields: { headline: 'ok' }, colour: 'red' }, 'colour'],
    [{}, '(body)'],
    [[{ fields: {} }], '(body)'],
  ];
  for (const [body, path] of cases) {
    const res = await patch(id, body);
    t.is(res.status, 400, `${JSON.stringify(body).slice(0, 80)} → ${res.status}`);
    t.is(res.body.code, 'validation_failed');
    t.true(
      res.body.errors.some((e: { path: string }) => e.path === path),
      `${JSON.stringify(body).slice(0, 80)}: ${JSON.stringify(res.body.errors)}`,
    );
  }
  const unknownSite = await patch(id, { fields: { headline: 'ok' }, apply_to: ['makers', 'nowhere'] });
  t.regex(unknownSite.body.errors[0].message, /"nowhere"/);
  const unknownKey = await patch(id, { fields: { colour: 'red' } });
  t.regex(unknownKey.body.errors[0].message, /colour/);
  const notJson = await patch(id, '{"fields":');
  t.is(notJson.status, 400);
  t.deepEqual(await row(id), before);
  t.deepEqual(await versions(id), []);
});

test("another owner's listing is not found and does not change; scopes are checked", async (t) => {
  const id = await listing({ name: 'Mine Inc', url: company('mine'), headline: 'Mine' });
  const before = await row(id);
  const res = await patch(id, { fields: { headline: 'Hijacked' }, apply_to: ['all'] }, other.key);
  t.is(res.status, 404);
  t.is(res.body.code, 'not_found');
  t.is((await api(env, 'GET', `/me/listings/${id}/versions`, { key: other.key })).status, 404);
  t.is((await patch(2_000_000_000, { fields: { headline: 'x' } })).status, 404);
  const readOnly = await env.user(['account:read']);
  t.is((await patch(id, { fields: { headline: 'x' } }, readOnly.key)).status, 403);
  t.is((await api(env, 'PATCH', `/me/listings/${id}`, { body: { fields: { headline: 'x' } } })).status, 401);
  t.deepEqual(await row(id), before);
  t.deepEqual(await versions(id), []);
});

test('apply_to copies only the sent site fields to the same company on the named sites', async (t) => {
  const acme = company('acme');
  const source = await listing({ name: 'Acme Main', url: acme, headline: 'Old main' });
  const acmeMakers = await listing({ name: 'Acme Makers', url: acme.replace('www.', 'shop.'), site: 'makers', headline: 'Old makers' });
  const betaMakers = await listing({ name: 'Beta Makers', url: company('beta'), site: 'makers', headline: 'Beta' });
  const acmeMakersBefore = await row(acmeMakers);
  const betaBefore = await row(betaMakers);

  const res = await patch(source, {
    fields: { headline: 'Rockets for everyone', seo_title: 'Acme', location: 'Toulouse' },
    socials: { github: 'https://github.com/acme' },
    apply_to: ['makers'],
  });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.deepEqual(res.body.applied, [{ site: 'makers', listing_id: acmeMakers, status: 'updated', fields: ['headline', 'seo_title'] }]);

  const after = await row(acmeMakers);
  t.is(after!.headline, 'Rockets for everyone');
  t.is(after!.seo_title, 'Acme');
  // Only the site fields sent travel: facts, socials and unsent texts stay as they were.
  t.deepEqual(after!.facts, acmeMakersBefore!.facts);
  t.deepEqual(after!.socials, acmeMakersBefore!.socials);
  t.is(after!.summary, acmeMakersBefore!.summary);
  t.is(after!.seo_description, acmeMakersBefore!.seo_description);
  t.deepEqual(await row(betaMakers), betaBefore);

  const [travelled] = await versions(acmeMakers);
  t.is(travelled.source_listing_id, source);
  t.is(travelled.editor_id, owner.userId);
  t.deepEqual(travelled.changes, {
    headline: { before: 'Old makers', after: 'Rockets for everyone' },
    seo_title: { before: null, after: 'Acme' },
  });

  // Sending the same values again changes nothing anywhere.
  const again = await patch(source, { fields: { headline: 'Rockets for everyone' }, apply_to: ['all'] });
  t.deepEqual(again.body.applied, [
    { site: 'main', listing_id: source, status: 'unchanged', fields: [] },
    { site: 'makers', listing_id: acmeMakers, status: 'unchanged', fields: [] },
  ]);
  t.is((await versions(acmeMakers)).length, 1);
});

test("apply_to reports a site without the company's listing and skips another owner's", async (t) => {
  const solo = company('solo');
  const source = await listing({ name: 'Solo Main', url: solo });
  const res = await patch(source, { fields: { summary: 'Alone here' }, apply_to: ['all'] });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.deepEqual(res.body.applied, [
    { site: 'main', listing_id: source, status: 'updated', fields: ['summary'] },
    { site: 'makers', listing_id: null, status: 'no_listing', fields: [] },
  ]);

  const shared = company('shared');
  const mine = await listing({ name: 'Shared Main', url: shared });
  const theirs = await listing({ name: 'Shared Makers', url: shared, site: 'makers', ownerId: other.userId, headline: 'Theirs' });
  const theirsBefore = await row(theirs);
  const skipped = await patch(mine, { fields: { headline: 'Ours' }, apply_to: ['makers'] });
  t.is(skipped.status, 200);
  t.deepEqual(skipped.body.applied, [{ site: 'makers', listing_id: null, status: 'not_owned', fields: [] }]);
  t.deepEqual(await row(theirs), theirsBefore);
  t.is(skipped.body.headline, 'Ours');
});

test('the version history keeps who, when, and before/after of the changed fields only', async (t) => {
  const id = await listing({ name: 'History Ltd', url: company('history'), headline: 'First' });
  await patch(id, { fields: { headline: 'Second', founded_year: 2020 }, faqs: [{ question: 'Q?', answer: 'A.' }] });
  await patch(id, { fields: { headline: 'Second', summary: 'Now with a summary' } });
  await patch(id, { fields: { headline: 'Second' } }); // no change: no version

  const res = await api(env, 'GET', `/me/listings/${id}/versions`, { key: owner.key });
  t.is(res.status, 200);
  t.is(res.body.total, 2);
  const [newest, oldest] = res.body.items;
  t.deepEqual(newest.changes, { summary: { before: null, after: 'Now with a summary' } });
  t.deepEqual(oldest.changes, {
    headline: { before: 'First', after: 'Second' },
    founded_year: { before: null, after: 2020 },
    faqs: { before: [], after: [{ question: 'Q?', answer: 'A.' }] },
  });
  for (const v of res.body.items) {
    t.is(v.edited_by, owner.userId);
    t.is(v.operation, 'update_my_listing');
    t.is(v.via_listing_id, null);
    t.true(Date.now() - Date.parse(v.created_at) < 60_000);
  }
  t.true(newest.id > oldest.id);

  const paged = await api(env, 'GET', `/me/listings/${id}/versions?per_page=1&page=2`, { key: owner.key });
  t.is(paged.body.items.length, 1);
  t.is(paged.body.items[0].id, oldest.id);
  t.is((await api(env, 'GET', `/me/listings/${id}/versions?per_page=500`, { key: owner.key })).status, 400);
});

test('an Idempotency-Key replays the first response and stores one version', async (t) => {
  const id = await listing({ name: 'Replay Co', url: company('replay') });
  const body = { fields: { headline: 'Once' }, apply_to: ['all'] };
  const headers = { 'Idempotency-Key': 'edit-1' };
  const first = await patch(id, body, owner.key, headers);
  t.is(first.status, 200);
  // Another edit in between: the replay still answers with the first response.
  await patch(id, { fields: { headline: 'Twice' } });
  const replay = await patch(id, body, owner.key, headers);
  t.is(replay.status, 200);
  t.is(replay.headers.get('idempotent-replayed'), 'true');
  t.deepEqual(replay.body, first.body);
  t.is((await row(id))!.headline, 'Twice');
  t.is((await versions(id)).length, 2);
  const conflict = await patch(id, { fields: { headline: 'Other' } }, owner.key, headers);
  t.is(conflict.status, 422);
  t.is(conflict.body.code, 'idempotency_conflict');
});

test('list_sites names the keys apply_to accepts', async (t) => {
  const res = await api(env, 'GET', '/sites');
  t.is(res.status, 200);
  t.deepEqual(
    res.body.items.map((s: { key: string }) => s.key),
    ['main', 'makers'],
  );
  t.true(res.body.items.every((s: { name: string }) => s.name.length > 0));
});

test('concurrent apply_to edits from two listings of one company all succeed', async (t) => {
  const url = company('race');
  const a = await listing({ name: 'Race Main', url });
  const b = await listing({ name: 'Race Makers', url, site: 'makers' });
  const results = await Promise.all(
    Array.from({ length: 12 }, (_, i) => patch(i % 2 ? a : b, { fields: { headline: `Edit ${i}` }, apply_to: ['all'] })),
  );
  t.deepEqual(
    results.map((r) => r.status),
    results.map(() => 200),
  );
  // Both listings end with the same headline: the last edit wrote both under one lock.
  t.is((await row(a))!.headline, (await row(b))!.headline);
});
