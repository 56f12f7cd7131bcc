import { randomBytes } from 'node:crypto';
import test from 'ava';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { api, request, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { completeProfile, imageBytes, ownedListing, pngClaiming, PUBLISHABLE, words } from '../helpers/founders.ts';
import { WebClient } from '../helpers/web.ts';

/** The owner's founder-profile and story forms without a browser: hostile and forged posts. */

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const PASSWORD = 'owner forms password';
const PROFILE = '/account/founder-profile';

async function signedIn() {
  const email = `forms-${randomBytes(4).toString('hex')}@example.com`;
  const user = await createVerifiedUser(db(), email, PASSWORD);
  const { key } = await createApiKey(db(), user.id, 'test', ['account:read', 'listings:write']);
  const client = new WebClient(env.baseUrl);
  await client.signIn(email, PASSWORD);
  return { user, key, client, _csrf: await client.csrfFrom(PROFILE) };
}

const postMultipart = (client: WebClient, path: string, form: FormData) => client.postMultipart(path, form);

function photoForm(_csrf: string | null, bytes?: Buffer, name = 'me.png') {
  const form = new FormData();
  if (_csrf) form.append('_csrf', _csrf);
  if (bytes) form.append('photo', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), name);
  return form;
}

const profileRow = (userId: number) => db()('founder_profiles').where({ user_id: userId }).first();
const photoRow = (userId: number) => db()('founder_photos').where({ user_id: userId }).first('etag');

test('profile form: bad input is a 400 naming the field and keeps what was typed; nothing saved', async (t) => {
  const { user, client, _csrf } = await signedIn();
  const good = { display_name: 'Ada', bio: words(25), links: 'https://ada.example.com/' };
  const cases: [Record<string, string>, string, RegExp][] = [
    [{ links: 'http://insecure.example.com' }, 'links', /^Link 1: Must be an https URL/],
    [{ links: 'https://a.example.com\n\nnot a url' }, 'links', /^Link 2: /],
    [{ links: Array.from({ length: 6 }, (_, i) => `https://l${i}.example.com`).join('\n') }, 'links', /5/],
    [{ links: 'https://same.example.com\nhttps://same.example.com' }, 'links', /^Link 2: Same link as links.0/],
    [{ display_name: 'x'.repeat(81) }, 'display_name', /80/],
    [{ display_name: 'Two\nlines' }, 'display_name', /one line/],
    [{ display_name: 'Next\u0085line' }, 'display_name', /one line/],
    [{ bio: 'Bell \u0007 inside' }, 'bio', /control characters/],
  ];
  for (const [override, name, message] of cases) {
    const res = await client.post(PROFILE, { _csrf, ...good, ...override });
    t.is(res.status, 400, name);
    t.regex(res.$(`#f-${name}-error`).text(), message, name);
    t.is(res.$(`#f-${name}`).attr('aria-invalid'), 'true');
    t.is(res.$(`.error-summary a[href="#f-${name}"]`).length, 1);
    const typed = res.$(`#f-${name}`).is('textarea') ? res.$(`#f-${name}`).text() : res.$(`#f-${name}`).val();
    t.is(typed, { ...good, ...override }[name]!.replace(/\r\n/g, '\n'));
  }
  t.is(await profileRow(user.id), undefined);

  // The form's limits are the operation's: the same schema gives maxlength.
  const form = await client.get(PROFILE);
  t.is(form.$('#f-display_name').attr('maxlength'), '80');
  t.is(form.$('#f-bio').attr('maxlength'), '2000');

  // Every bad link is named, as the API names each (not only the first).
  const two = await client.post(PROFILE, {
    _csrf,
    ...good,
    links: 'http://one.example.com\nhttps://fine.example.com\nftp://three.example.com',
  });
  t.is(two.status, 400);
  t.regex(two.$('#f-links-error').text(), /^Link 1: Must be an https URL[^;]*; Link 3: Must be an https URL/);

  const saved = await client.post(PROFILE, { _csrf, ...good, links: ' https://ada.example.com/ \r\n\r\nhttps://github.com/ada\r\n' });
  t.is(saved.status, 303);
  t.is(saved.location, `${PROFILE}?notice=profile-saved`);
  t.like(await profileRow(user.id), { display_name: 'Ada', links: ['https://ada.example.com/', 'https://github.com/ada'] });
  const shown = await client.get(saved.location!);
  t.is(shown.$('.notice').text(), 'Your founder profile is saved.');
  t.deepEqual(
    shown
      .$('.missing li')
      .map((_, li) => shown.$(li).attr('data-code'))
      .get(),
    ['photo_missing'],
  );
  t.is(shown.$('.missing a').attr('href'), PROFILE);
});

test('forms without this session’s CSRF token are refused and change nothing', async (t) => {
  const { user, client } = await signedIn();
  const other = await signedIn();
  const listing = await ownedListing(env, user.id);
  const forged = [undefined, other._csrf, 'x'.repeat(43)];
  for (const token of forged) {
    const form: Record<string, string> = token ? { _csrf: token } : {};
    t.is((await client.post(PROFILE, { ...form, display_name: 'Forged' })).status, 403);
    t.is((await client.post(`${PROFILE}/interview`, { ...form, answer_1: 'Forged' })).status, 403);
    t.is((await client.post(`/account/listings/${listing.id}/story`, { ...form, title: 'Forged' })).status, 403);
    t.is((await postMultipart(client, `${PROFILE}/photo`, photoForm(token ?? null, await imageBytes()))).status, 403);
  }
  t.is(await profileRow(user.id), undefined);
  t.is(await photoRow(user.id), undefined);
  t.is(await db()('founder_stories').where({ listing_id: listing.id }).first(), undefined);
  t.deepEqual(await db()('interview_answers').where({ user_id: user.id }), []);
});

test('photo form: type and size are checked by content; only a real photo is stored', async (t) => {
  const { user, client, _csrf } = await signedIn();
  const post = (form: FormData) => postMultipart(client, `${PROFILE}/photo`, form);
  // A refused photo goes back to the form (303), which shows the message once: the browser never
  // stays on the POST URL, so a reload sends nothing again.
  const refused: [FormData, RegExp][] = [
    [photoForm(_csrf), /Choose a photo/],
    [photoForm(_csrf, Buffer.alloc(0)), /Choose a photo/],
    [photoForm(_csrf, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'me.png'), /not an image we accept/],
    [photoForm(_csrf, await imageBytes('png', 20, 20)), /at least 64/],
    [photoForm(_csrf, pngClaiming(20_000, 20_000)), /megapixels/],
    [photoForm(_csrf, Buffer.concat([(await imageBytes('png')).subarray(0, 200)])), /damaged|could not be read/],
    [photoForm(_csrf, Buffer.alloc(5 * 1024 * 1024 + 100 * 1024, 0xff)), /larger than 5 MB/],
  ];
  for (const [form, message] of refused) {
    const res = await post(form);
    t.is(res.status, 303, message.source);
    t.is(res.location, `${PROFILE}#photo`);
    const back = await client.get(res.location!);
    t.regex(back.$('#f-photo-error').text(), message);
    t.is(back.$('.error-summary a[href="#f-photo"]').length, 1);
    t.is((await client.get(PROFILE)).$('#f-photo-error').length, 0, 'shown once');
  }
  // The same path posted as a plain form has no file.
  t.is((await client.post(`${PROFILE}/photo`, { _csrf })).status, 303);
  const garbage = await request(env, 'POST', `${PROFILE}/photo`, {
    body: 'not multipart at all',
    headers: { 'content-type': 'multipart/form-data; boundary=zzz', cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
  });
  t.is(garbage.status, 400);
  t.is(await photoRow(user.id), undefined);

  const saved = await post(photoForm(_csrf, await imageBytes('webp', 300, 300), 'photo.txt'));
  t.is(saved.status, 303);
  t.is(saved.location, `${PROFILE}?notice=photo-saved#photo`);
  const { etag } = (await photoRow(user.id))!;
  const shown = await client.get(PROFILE);
  t.is(shown.$('img.founder-photo').attr('src'), `/media/founders/${user.id}/photo.webp?v=${etag}`);
  t.is(shown.$('label[for=f-photo]').text(), 'Replace your photo');
});

test('interview form: empty, over-long or control characters → 400 at that question; answers saved', async (t) => {
  const { user, client, _csrf } = await signedIn();
  const questions = (await api(env, 'GET', '/interview-questions')).body.items as { id: number }[];
  const [q1, q2] = questions.map((q) => `answer_${q.id}`);
  const post = (answers: Record<string, string>) => client.post(`${PROFILE}/interview`, { _csrf, ...answers });
  let res = await post({ [q1!]: '  ', [q2!]: '' });
  t.is(res.status, 400);
  t.regex(res.$('.error-summary').text(), /Write at least one answer/);
  res = await post({ [q1!]: 'Fine.', [q2!]: 'x'.repeat(2001) });
  t.is(res.status, 400);
  t.regex(res.$(`#f-${q2}-error`).text(), /2000/);
  t.is(res.$(`#f-${q1}`).text(), 'Fine.');
  res = await post({ [q1!]: 'Null \u0000 byte' });
  t.is(res.status, 400);
  t.regex(res.$(`#f-${q1}-error`).text(), /control characters/);
  t.deepEqual(await db()('interview_answers').where({ user_id: user.id }), []);

  res = await post({ [q1!]: 'Rockets.', [q2!]: 'Makers.', answer_999999: 'ignored', extra: 'ignored' });
  t.is(res.status, 303);
  const saved = await db()('interview_answers').where({ user_id: user.id }).orderBy('question_id').pluck('answer');
  t.deepEqual(saved, ['Rockets.', 'Makers.']);
  t.is((await client.get(PROFILE)).$(`#f-${q2}`).text(), 'Makers.');
});

test("story editor: another owner's listing is not found; bad input is a 400; a published story keeps its minimum", async (t) => {
  const { user, key, client, _csrf } = await signedIn();
  const stranger = await signedIn();
  const listing = await ownedListing(env, user.id);
  const editor = `/account/listings/${listing.id}/story`;
  for (const path of [editor, '/account/listings/abc/story', '/account/listings/0/story', '/account/listings/99999999999/story']) {
    t.is((await stranger.client.get(path)).status, 404, path);
  }
  t.is((await stranger.client.post(editor, { _csrf: stranger._csrf, title: 'Hijacked', how_started: 'Mine now.' })).status, 404);
  t.is(await db()('founder_stories').where({ listing_id: listing.id }).first(), undefined);

  const page = await client.get(editor);
  t.is(page.status, 200);
  t.is(page.$('[data-status]').attr('data-status'), 'draft');
  t.deepEqual(
    page
      .$('.missing li')
      .map((_, li) => page.$(li).attr('data-code'))
      .get(),
    ['founder_profile_missing', 'story_too_few_words', 'story_too_few_sections'],
  );
  t.deepEqual(
    page
      .$('textarea')
      .map((_, el) => page.$(el).attr('name'))
      .get(),
    ['how_started', 'problem', 'what_built', 'hard_parts', 'milestones', 'whats_next'],
  );

  for (const [fields, name] of [
    [{ problem: 'x'.repeat(10_001) }, 'problem'],
    [{ title: 'Two\nlines' }, 'title'],
  ] as const) {
    const res = await client.post(editor, { _csrf, ...fields });
    t.is(res.status, 400, name);
    t.truthy(res.$(`#f-${name}-error`).text(), name);
  }
  t.is(await db()('founder_stories').where({ listing_id: listing.id }).first(), undefined);

  await completeProfile(env, key);
  const published = await client.post(editor, { _csrf, title: 'Ours', ...PUBLISHABLE });
  t.is(published.status, 303);
  t.is(published.location, `${editor}?notice=published`);
  const before = await db()('founder_stories').where({ listing_id: listing.id }).first();
  t.truthy(before!.published_at);
  const shrunk = await client.post(editor, { _csrf, title: 'Ours', how_started: words(20) });
  t.is(shrunk.status, 422);
  t.regex(shrunk.$('.error-summary').text(), /published.*minimum/);
  t.is(shrunk.$('#f-how_started').text(), words(20));
  t.deepEqual(await db()('founder_stories').where({ listing_id: listing.id }).first(), before);
  const shown = await client.get(`${editor}?notice=published`);
  t.is(shown.$('.notice').text(), 'Your story is saved and published.');
  t.is(shown.$('[data-status] a').attr('href'), `/stories/${listing.slug}`);
  t.is(shown.$('[data-status]').attr('data-visible'), 'true');

  // While the listing is not live the editor says the story is not public yet, and links nowhere.
  await db()('listings').where({ id: listing.id }).update({ status: 'awaiting_badge' });
  const hidden = await client.get(editor);
  t.is(hidden.$('[data-status]').attr('data-visible'), 'false');
  t.regex(
    hidden.$('[data-status]').text(),
    /not public yet.*when your listing goes live \(it is waiting for our badge on your site now\)/s,
  );
  t.is(hidden.$(`[data-status] a[href="/stories/${listing.slug}"]`).length, 0);
});
