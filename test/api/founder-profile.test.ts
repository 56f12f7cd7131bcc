import http from 'node:http';
import test from 'ava';
import sharp from 'sharp';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { completeProfile, imageBytes, ownedListing, pngClaiming, PUBLISHABLE, words } from '../helpers/founders.ts';
import { publicFounder } from '../../src/domain/founders/profiles.ts';

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const codes = (body: { missing: { code: string }[] }) => body.missing.map((m) => m.code);
const upload = (key: string, image: Buffer | string) =>
  api(env, 'PUT', '/me/founder-profile/photo', {
    key,
    body: { image_base64: typeof image === 'string' ? image : image.toString('base64') },
  });

/** GET/HEAD of a non-API path, raw bytes kept. */
function media(path: string, method = 'GET', headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const req = http.request(new URL(path, env.baseUrl), { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('a new founder profile is empty and says what is missing', async (t) => {
  const owner = await env.user();
  const res = await api(env, 'GET', '/me/founder-profile', { key: owner.key });
  t.is(res.status, 200);
  t.like(res.body, {
    user_id: owner.userId,
    display_name: null,
    bio: null,
    links: [],
    photo_url: null,
    complete: false,
    interview: [],
    updated_at: null,
  });
  t.deepEqual(codes(res.body), ['founder_profile_missing']);
  t.is(res.body.missing[0].url, `${env.baseUrl}/account/founder-profile`);
  t.is(res.body.public_url, `${env.baseUrl}/founders/${owner.userId}`);
});

test('update_founder_profile changes only the fields sent; empty clears; links replace all', async (t) => {
  const owner = await env.user();
  const patch = (body: unknown) => api(env, 'PATCH', '/me/founder-profile', { key: owner.key, body });
  let res = await patch({ display_name: '  Grace  ' });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.is(res.body.display_name, 'Grace');
  t.deepEqual(codes(res.body), ['photo_missing', 'bio_too_short', 'link_missing']);
  res = await patch({ bio: words(19), links: ['https://a.example.com/', 'https://b.example.com/x'] });
  t.is(res.body.display_name, 'Grace');
  t.deepEqual(res.body.links, ['https://a.example.com/', 'https://b.example.com/x']);
  t.deepEqual(codes(res.body), ['photo_missing', 'bio_too_short']);
  t.regex(res.body.missing[1].reason, /19 words/);
  res = await patch({ bio: words(20), links: ['https://c.example.com/'] });
  t.deepEqual(res.body.links, ['https://c.example.com/']);
  t.deepEqual(codes(res.body), ['photo_missing']);
  t.is(res.body.missing[0].operation, 'upload_founder_photo');
  res = await patch({ display_name: '', links: [] });
  t.is(res.body.display_name, null);
  t.is(res.body.bio, words(20));
  t.deepEqual(codes(res.body), ['display_name_missing', 'photo_missing', 'link_missing']);
  const empty = await patch({});
  t.is(empty.status, 200);
  t.deepEqual(empty.body.links, []);
});

test('bad profile input is a 400 naming the field, and nothing changes', async (t) => {
  const owner = await env.user();
  await api(env, 'PATCH', '/me/founder-profile', { key: owner.key, body: { display_name: 'Kept', links: ['https://kept.example.com/'] } });
  const before = await env.services.db('founder_profiles').where({ user_id: owner.userId }).first();
  const cases: [unknown, string][] = [
    [{ display_name: 'x'.repeat(81) }, 'display_name'],
    [{ display_name: 'two\nlines' }, 'display_name'],
    [{ display_name: 'next\u0085line' }, 'display_name'],
    [{ display_name: 7 }, 'display_name'],
    [{ bio: 'b'.repeat(2001) }, 'bio'],
    [{ bio: 'bell \u0007' }, 'bio'],
    [{ links: 'https://one.example.com/' }, 'links'],
    [{ links: Array.from({ length: 6 }, (_, i) => `https://l${i}.example.com/`) }, 'links'],
    [{ links: ['https://ok.example.com/', 'http://plain.example.com/'] }, 'links.1'],
    [{ links: ['javascript:alert(1)'] }, 'links.0'],
    [{ links: ['https://user:pw@example.com/'] }, 'links.0'],
    [{ links: ['https://same.example.com/', 'https://other.example.com/', 'https://same.example.com/'] }, 'links.2'],
    [{ links: [42] }, 'links.0'],
    [{ photo_url: 'https://example.com/me.png' }, 'photo_url'],
    [{ display_name: 'ok', extra: 1 }, 'extra'],
  ];
  for (const [body, field] of cases) {
    const res = await api(env, 'PATCH', '/me/founder-profile', { key: owner.key, body });
    t.is(res.status, 400, JSON.stringify(body).slice(0, 80));
    t.is(res.body.code, 'validation_failed');
    t.true(
      res.body.errors.some((e: { path: string }) => e.path === field),
      `${field}: ${JSON.stringify(res.body.errors)}`,
    );
  }
  t.deepEqual(await env.services.db('founder_profiles').where({ user_id: owner.userId }).first(), before);
});

test('scopes: reading needs account:read, writing needs listings:write', async (t) => {
  const readOnly = await env.user(['account:read']);
  const writeOnly = await env.user(['listings:write']);
  t.is((await api(env, 'GET', '/me/founder-profile', { key: readOnly.key })).status, 200);
  t.is((await api(env, 'GET', '/me/founder-profile', { key: writeOnly.key })).status, 403);
  t.is((await api(env, 'PATCH', '/me/founder-profile', { key: readOnly.key, body: { bio: 'x' } })).status, 403);
  t.is((await upload(readOnly.key, await imageBytes())).status, 403);
  t.is((await api(env, 'PATCH', '/me/founder-profile', { body: { bio: 'x' } })).status, 401);
  t.is((await api(env, 'PATCH', '/me/founder-profile', { key: writeOnly.key, body: { bio: 'x' } })).status, 200);
  t.is(await env.services.db('founder_profiles').where({ user_id: readOnly.userId }).first(), undefined);
});

test('photos are accepted by content in every supported format and served as a 512×512 WebP', async (t) => {
  const owner = await env.user();
  for (const format of ['png', 'jpeg', 'webp', 'gif', 'avif'] as const) {
    const res = await upload(owner.key, await imageBytes(format, 300, 120));
    t.is(res.status, 200, `${format}: ${JSON.stringify(res.body)}`);
    t.regex(res.body.photo_url, new RegExp(`^${env.baseUrl}/media/founders/${owner.userId}/photo\\.webp\\?v=[0-9a-f]{16}$`));
    const served = await media(res.body.photo_url);
    t.is(served.status, 200);
    t.is(served.headers['content-type'], 'image/webp');
    const meta = await sharp(served.body).metadata();
    t.like(meta, { format: 'webp', width: 512, height: 512 }, format);
  }
  const row = await env.services.db('founder_photos').where({ user_id: owner.userId }).first();
  t.is(row!.source_format, 'avif', 'the last upload replaced the earlier ones');
  // A data: URL whose claimed type is wrong still works: the bytes decide.
  const claimed = await upload(owner.key, `data:text/plain;base64,${(await imageBytes('png')).toString('base64')}`);
  t.is(claimed.status, 200);
  t.is((await env.services.db('founder_photos').where({ user_id: owner.userId }).first())!.source_format, 'png');
});

test('the photo route caches, revalidates, answers HEAD and 404s what does not exist', async (t) => {
  const owner = await env.user();
  const uploaded = await upload(owner.key, await imageBytes('jpeg', 640, 480));
  const path = `/media/founders/${owner.userId}/photo.webp`;
  const first = await media(path);
  t.is(first.status, 200);
  t.is(first.headers['cache-control'], 'public, max-age=86400');
  t.is(first.headers['x-content-type-options'], 'nosniff');
  t.truthy(first.headers.etag);
  t.true(uploaded.body.photo_url.endsWith(`?v=${JSON.parse(first.headers.etag!)}`));
  const revalidated = await media(path, 'GET', { 'If-None-Match': first.headers.etag! });
  t.is(revalidated.status, 304);
  t.is(revalidated.body.length, 0);
  const head = await media(path, 'HEAD');
  t.is(head.status, 200);
  t.is(head.headers['content-type'], 'image/webp');
  t.is(head.body.length, 0);
  const nobody = await env.user();
  for (const missing of [
    `/media/founders/${nobody.userId}/photo.webp`,
    '/media/founders/abc/photo.webp',
    '/media/founders/0/photo.webp',
    '/media/founders/99999999999/photo.webp',
  ]) {
    const res = await media(missing);
    t.is(res.status, 404, missing);
    t.is(res.headers['content-type'], 'application/problem+json');
  }
});

test('photos that are not accepted images are refused by content, and the old photo stays', async (t) => {
  const owner = await env.user();
  const good = await upload(owner.key, await imageBytes('png'));
  const etag = (await env.services.db('founder_photos').where({ user_id: owner.userId }).first('etag'))!.etag;
  const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="600" height="600"><rect width="600" height="600"/></svg>');
  const png = await imageBytes('png');
  const cases: [string, number, string][] = [
    [`data:image/png;base64,${Buffer.from('hello, I am a text file named photo.png\n').toString('base64')}`, 400, 'unsupported_image'],
    [svg.toString('base64'), 400, 'unsupported_image'],
    [(await sharp(png).tiff().toBuffer()).toString('base64'), 400, 'unsupported_image'],
    [Buffer.from('%PDF-1.4\n%âãÏÓ\n').toString('base64'), 400, 'unsupported_image'],
    [png.subarray(0, 60).toString('base64'), 400, 'unsupported_image'],
    [Buffer.concat([png.subarray(0, 33), Buffer.alloc(400, 7)]).toString('base64'), 400, 'unsupported_image'],
    [(await imageBytes('png', 40, 300)).toString('base64'), 400, 'image_too_small'],
    [pngClaiming(30_000, 30_000).toString('base64'), 400, 'image_too_many_pixels'],
    [pngClaiming(100_000, 1_000).toString('base64'), 400, 'image_too_many_pixels'],
    ['not base64 at all!', 400, 'validation_failed'],
    ['', 400, 'validation_failed'],
  ];
  for (const [value, status, code] of cases) {
    const res = await upload(owner.key, value);
    t.is(res.status, status, `${code}: ${JSON.stringify(res.body)}`);
    t.is(res.body.code, code, value.slice(0, 40));
  }
  const noField = await api(env, 'PUT', '/me/founder-profile/photo', { key: owner.key, body: { image: png.toString('base64') } });
  t.is(noField.status, 400);
  t.deepEqual(noField.body.errors.map((e: { path: string }) => e.path).sort(), ['image', 'image_base64']);
  t.is((await env.services.db('founder_photos').where({ user_id: owner.userId }).first('etag'))!.etag, etag);
  t.is(good.status, 200);
});

test('oversized photos are refused with 413 before they are decoded', async (t) => {
  const owner = await env.user();
  // A real PNG of noise, just over 5 MB.
  const big = await sharp({
    create: { width: 1400, height: 1400, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } },
  })
    .png({ compressionLevel: 0 })
    .toBuffer();
  t.true(big.length > 5 * 1024 * 1024 && big.length < 6 * 1024 * 1024, String(big.length));
  const res = await upload(owner.key, big);
  t.is(res.status, 413);
  t.is(res.body.code, 'image_too_large');
  // Beyond the body limit of the upload route, the body parser refuses it the same way.
  const huge = await upload(owner.key, Buffer.alloc(7 * 1024 * 1024, 1));
  t.is(huge.status, 413);
  t.is(huge.body.code, 'image_too_large');
  // Other routes keep the small body limit.
  const story = await api(env, 'PATCH', '/me/founder-profile', { key: owner.key, body: { bio: 'x'.repeat(2 * 1024 * 1024) } });
  t.is(story.status, 413);
  t.is(story.body.code, 'payload_too_large');
  t.is(await env.services.db('founder_photos').where({ user_id: owner.userId }).first(), undefined);
});

test('publicFounder shows a complete profile with answers, published stories and live listings only', async (t) => {
  const owner = await env.user();
  await api(env, 'PATCH', '/me/founder-profile', { key: owner.key, body: { display_name: 'Linus' } });
  t.is(await publicFounder(env.services.db, owner.userId), null, 'incomplete profiles have no public page');
  await completeProfile(env, owner.key);
  const listing = await ownedListing(env, owner.userId, 'Kernel Co');
  const hidden = await ownedListing(env, owner.userId, 'Hidden Co');
  await env.services.db('listings').where({ id: hidden.id }).update({ status: 'draft' });
  await api(env, 'PUT', `/me/listings/${listing.id}/story`, { key: owner.key, body: { ...PUBLISHABLE, title: 'Just for fun' } });
  await api(env, 'PUT', `/me/listings/${hidden.id}/story`, { key: owner.key, body: { how_started: 'draft only' } });
  const [question] = await env.services.db('interview_questions').where({ active: true }).orderBy('id').limit(1);
  await api(env, 'PUT', '/me/interview', { key: owner.key, body: { answers: [{ question_id: question.id, answer: 'An OS.' }] } });
  const founder = await publicFounder(env.services.db, owner.userId);
  t.truthy(founder);
  t.is(founder!.display_name, 'Ada Founder');
  t.deepEqual(founder!.links, ['https://ada.example.com/']);
  t.regex(founder!.photo_path!, /^\/media\/founders\/\d+\/photo\.webp\?v=/);
  t.deepEqual(
    founder!.interview.map((a) => [a.question, a.answer]),
    [[question.text, 'An OS.']],
  );
  t.deepEqual(
    founder!.stories.map((s) => [s.title, s.path]),
    [['Just for fun', `/stories/${listing.slug}`]],
  );
  t.deepEqual(
    founder!.listings.map((l) => l.slug),
    [listing.slug],
  );
  t.is(await publicFounder(env.services.db, 2_000_000_000), null);
});
