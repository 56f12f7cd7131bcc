import http from 'node:http';
import test from 'ava';
import sharp from 'sharp';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { eventually } from '../helpers/eventually.ts';
import { imageBytes, ownedListing } from '../helpers/founders.ts';
import { mcpParity } from '../helpers/mcp-parity.ts';
import { html, serve, type Handler, type TestSite } from '../helpers/site.ts';

/** Listing logos and preview images: drafted by the crawl, uploaded by owners, served under /media; card images. */

let env: TestEnv;
let parity: ReturnType<typeof mcpParity>;
const sites: TestSite[] = [];

test.before(async () => {
  env = await startTestEnv(import.meta.url);
  await env.startWorkers();
  parity = mcpParity(env);
});
test.after.always(async () => {
  await parity?.close();
  for (const site of sites) await site.close();
  await env?.close();
});

/** GET/HEAD of a non-API path, raw bytes kept. */
function fetchRaw(url: string, method = 'GET', headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const req = http.request(new URL(url, env.baseUrl), { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const bytes =
  (body: Buffer, contentType: string): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': contentType, 'content-length': String(body.length) });
    res.end(body);
  };

async function site(routes: Record<string, Handler>): Promise<TestSite> {
  const s = await serve(routes);
  sites.push(s);
  return s;
}

async function drafted(key: string, url: string) {
  const created = await api(env, 'POST', '/drafts', { key, body: { url } });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  return eventually(
    `draft ${created.body.id} to finish`,
    async () => {
      const res = await api(env, 'GET', `/drafts/${created.body.id}`, { key });
      return !['crawling', 'drafting'].includes(res.body.status) && res.body;
    },
    { timeoutMs: 60_000 },
  );
}

const home = (head: string) => `<!doctype html><html><head><title>Pixel Forge | Images for teams</title>
<meta name="description" content="Pixel Forge makes image pipelines for product teams.">${head}</head>
<body><h1>Images for teams</h1><p>Pixel Forge resizes, checks and serves every image your product shows.</p></body></html>`;

const LOGO_URL = /\/media\/logos\/([0-9a-f]{32})\/256\.png$/;
const IMAGE_URL = /\/media\/images\/[0-9a-f]{32}\.jpg$/;

test('a crawl stores the JSON-LD logo and og:image; the listing serves them from /media in the right sizes, cached for good', async (t) => {
  const owner = await env.user();
  const s = await site({
    '/': html(
      home(`<meta property="og:image" content="/og.jpg">
<link rel="icon" href="/favicon.png">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","name":"Pixel Forge","logo":"/brand/logo.png"}</script>`),
    ),
    '/brand/logo.png': bytes(await imageBytes('png', 400, 300), 'image/png'),
    '/favicon.png': bytes(await imageBytes('png', 64, 64), 'image/png'),
    '/og.jpg': bytes(await imageBytes('jpeg', 1600, 900), 'image/jpeg'),
  });
  const draft = await drafted(owner.key, s.url);
  t.is(draft.status, 'ready', JSON.stringify(draft.failure));
  t.regex(draft.fields.logo_url, LOGO_URL);
  t.true(draft.fields.logo_url.startsWith(`${env.baseUrl}/media/`));
  t.regex(draft.fields.image_url, IMAGE_URL);
  t.is(draft.evidence.logo_url.source_url, s.url);
  t.true(draft.evidence.logo_url.snippet.includes('/brand/logo.png'), 'the JSON-LD logo comes before the icon link');
  t.true(s.requests.includes('/brand/logo.png') && !s.requests.includes('/favicon.png'));

  const submitted = await api(env, 'POST', `/drafts/${draft.id}/submit`, { key: owner.key });
  t.is(submitted.status, 201, JSON.stringify(submitted.body));
  const listing = (await api(env, 'GET', `/me/listings/${submitted.body.listing_id}`, { key: owner.key })).body;
  t.is(listing.logo_url, draft.fields.logo_url);
  t.is(listing.image_url, draft.fields.image_url);

  const logo = await fetchRaw(listing.logo_url);
  t.is(logo.status, 200);
  t.is(logo.headers['content-type'], 'image/png');
  t.is(logo.headers['cache-control'], 'public, max-age=31536000, immutable');
  t.like(await sharp(logo.body).metadata(), { format: 'png', width: 256, height: 256 });
  const small = await fetchRaw(listing.logo_url.replace(/256\.png$/, '64.png'));
  t.like(await sharp(small.body).metadata(), { format: 'png', width: 64, height: 64 });
  const image = await fetchRaw(listing.image_url);
  t.is(image.headers['content-type'], 'image/jpeg');
  t.like(await sharp(image.body).metadata(), { format: 'jpeg', width: 1200, height: 630 });

  // A strong ETag (a hash of the bytes): If-None-Match answers 304 without a body; HEAD has none either.
  const etag = logo.headers.etag!;
  t.regex(etag, /^"[0-9a-f]{32}"$/);
  const again = await fetchRaw(listing.logo_url, 'GET', { 'If-None-Match': etag });
  t.is(again.status, 304);
  t.is(again.body.length, 0);
  const head = await fetchRaw(listing.image_url, 'HEAD');
  t.is(head.status, 200);
  t.is(head.body.length, 0);

  for (const missing of [
    '/media/logos/00000000000000000000000000000000/256.png',
    `/media/logos/${LOGO_URL.exec(listing.logo_url)![1]}/128.png`,
    '/media/logos/..%2F..%2Fetc/256.png',
    '/media/images/nothing.jpg',
    '/media/other/file.png',
  ]) {
    const res = await fetchRaw(missing);
    t.is(res.status, 404, missing);
  }
});

test('broken, disguised and huge images leave the draft without them, and drafting still succeeds', async (t) => {
  const owner = await env.user();
  const png = await imageBytes('png', 300, 300);
  const s = await site({
    '/': html(
      home(`<meta property="og:image" content="/huge.png"><meta name="twitter:image" content="/cut.jpg">
<link rel="apple-touch-icon" href="/missing.png"><link rel="icon" href="/tiny.png">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","name":"Pixel Forge","logo":"/page.png"}</script>`),
    ),
    '/page.png': bytes(Buffer.from('<!doctype html><title>Not an image</title>'), 'image/png'),
    '/tiny.png': bytes(await imageBytes('png', 20, 20), 'image/png'),
    '/huge.png': bytes(Buffer.alloc(6 * 1024 * 1024, 1), 'image/png'),
    '/cut.jpg': bytes((await imageBytes('jpeg', 800, 600)).subarray(0, 300), 'image/jpeg'),
    '/as-html.png': bytes(png, 'text/html'),
  });
  const draft = await drafted(owner.key, s.url);
  t.is(draft.status, 'ready', JSON.stringify(draft.failure));
  t.like(draft.fields, { name: 'Pixel Forge', logo_url: null, image_url: null });
  t.is(draft.evidence.logo_url, undefined);
  t.is(draft.evidence.image_url, undefined);
  for (const path of ['/page.png', '/missing.png', '/tiny.png', '/huge.png', '/cut.jpg']) t.true(s.requests.includes(path), path);

  // An image served as HTML is not taken either; a draft drops its drafted logo with null.
  const other = await site({
    '/': html(home('<link rel="icon" href="/as-html.png"><meta property="og:image" content="/ok.png">')),
    '/as-html.png': bytes(png, 'text/html'),
    '/ok.png': bytes(png, 'image/png'),
  });
  const second = await drafted(owner.key, other.url);
  t.is(second.fields.logo_url, null);
  t.regex(second.fields.image_url, IMAGE_URL);
  const dropped = await api(env, 'PATCH', `/drafts/${second.id}`, { key: owner.key, body: { image_url: null } });
  t.is(dropped.body.fields.image_url, null);
  const elsewhere = await api(env, 'PATCH', `/drafts/${second.id}`, { key: owner.key, body: { image_url: 'https://example.com/x.png' } });
  t.is(elsewhere.status, 400);
  t.deepEqual(
    elsewhere.body.errors.map((e: { path: string }) => e.path),
    ['image_url'],
  );
});

test('owners upload and remove the logo and image over REST; bad images get the photo’s clear errors', async (t) => {
  const owner = await env.user();
  const stranger = await env.user();
  const { id } = await ownedListing(env, owner.userId, 'Upload Co');
  const put = (kind: string, image: Buffer | string, key = owner.key, listing = id) =>
    api(env, 'PUT', `/me/listings/${listing}/${kind}`, {
      key,
      body: { image_base64: typeof image === 'string' ? image : image.toString('base64') },
    });

  const logo = await put('logo', await imageBytes('jpeg', 300, 120));
  t.is(logo.status, 200, JSON.stringify(logo.body));
  t.regex(logo.body.logo_url, LOGO_URL);
  t.like(await sharp((await fetchRaw(logo.body.logo_url)).body).metadata(), { width: 256, height: 256, format: 'png', hasAlpha: true });
  const image = await put('image', `data:image/webp;base64,${(await imageBytes('webp', 900, 900)).toString('base64')}`);
  t.is(image.status, 200);
  t.regex(image.body.image_url, IMAGE_URL);
  t.like(await sharp((await fetchRaw(image.body.image_url)).body).metadata(), { width: 1200, height: 630 });
  t.is((await api(env, 'GET', `/me/listings/${id}`, { key: owner.key })).body.logo_url, logo.body.logo_url);

  const big = await sharp({
    create: { width: 1400, height: 1400, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } },
  })
    .png({ compressionLevel: 0 })
    .toBuffer();
  const cases: [string, Buffer | string, number, string, RegExp?][] = [
    [
      'logo',
      Buffer.from('hello, I am a text file named logo.png\n'),
      400,
      'unsupported_image',
      /^The upload is not an image we accept\. Send a JPEG, PNG, WebP, GIF or AVIF logo\.$/,
    ],
    ['image', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="900" height="900"/>'), 400, 'unsupported_image', /image\.$/],
    ['logo', (await imageBytes('png')).subarray(0, 60), 400, 'unsupported_image'],
    ['logo', await imageBytes('png', 40, 300), 400, 'image_too_small', /at least 64/],
    ['image', await imageBytes('png', 150, 150), 400, 'image_too_small', /at least 200/],
    ['logo', big, 413, 'image_too_large', /^The logo is larger than 5 MB\.$/],
    ['image', big, 413, 'image_too_large', /^The image is larger than 5 MB\.$/],
    ['logo', 'not base64!', 400, 'validation_failed'],
  ];
  for (const [kind, value, status, code, detail] of cases) {
    const res = await put(kind, value);
    t.is(res.status, status, `${kind} ${code}: ${JSON.stringify(res.body)}`);
    t.is(res.body.code, code);
    if (detail) t.regex(res.body.detail, detail);
  }
  const huge = await api(env, 'PUT', `/me/listings/${id}/image`, { key: owner.key, body: { image_base64: 'A'.repeat(9 * 1024 * 1024) } });
  t.is(huge.status, 413);
  t.is(huge.body.code, 'image_too_large');
  // Refused uploads left the earlier ones in place.
  t.like((await api(env, 'GET', `/me/listings/${id}`, { key: owner.key })).body, {
    logo_url: logo.body.logo_url,
    image_url: image.body.image_url,
  });

  const theirs = await put('logo', await imageBytes('png'), stranger.key);
  t.is(theirs.status, 404);
  t.is(theirs.body.code, 'not_found');
  t.is((await put('logo', await imageBytes('png'), owner.key, 99_999_999)).status, 404);
  t.is((await api(env, 'PUT', `/me/listings/${id}/logo`, { body: { image_base64: 'AAAA' } })).status, 401);

  const removed = await api(env, 'DELETE', `/me/listings/${id}/logo`, { key: owner.key });
  t.is(removed.status, 200);
  t.is(removed.body.logo_url, null);
  t.is((await api(env, 'DELETE', `/me/listings/${id}/image`, { key: stranger.key })).status, 404);
});

test('the upload tools over MCP answer as REST does', async (t) => {
  const owner = await env.user();
  const stranger = await env.user();
  const { id } = await ownedListing(env, owner.userId, 'Mcp Media Co');
  const good = await parity.viaMcp(owner.key, 'upload_listing_logo', {
    listing_id: id,
    image_base64: (await imageBytes('png', 128, 128)).toString('base64'),
  });
  t.false(good.error, JSON.stringify(good.body));
  t.regex(good.body.logo_url, LOGO_URL);
  const rest = await parity.viaRest(owner.key, 'get_my_listing', { listing_id: id });
  t.is(rest.body.logo_url, good.body.logo_url);
  const image = await parity.viaMcp(owner.key, 'upload_listing_image', {
    listing_id: id,
    image_base64: (await imageBytes('gif', 400, 300)).toString('base64'),
  });
  t.regex(image.body.image_url, IMAGE_URL);

  const notImage = await parity.viaMcp(owner.key, 'upload_listing_image', {
    listing_id: id,
    image_base64: Buffer.from('%PDF-1.4\n').toString('base64'),
  });
  t.true(notImage.error);
  t.is(notImage.body.code, 'unsupported_image');
  const tooBig = await parity.viaMcp(owner.key, 'upload_listing_logo', {
    listing_id: id,
    image_base64: Buffer.alloc(5 * 1024 * 1024 + 10, 1).toString('base64'),
  });
  t.true(tooBig.error);
  t.is(tooBig.body.code, 'image_too_large');
  const theirs = await parity.viaMcp(stranger.key, 'upload_listing_logo', {
    listing_id: id,
    image_base64: (await imageBytes('png')).toString('base64'),
  });
  t.true(theirs.error);
  t.is(theirs.body.code, 'not_found');
});

test('a listing without a preview image has a generated 1200×630 PNG card with its name, headline and logo', async (t) => {
  const owner = await env.user();
  const { id, slug } = await ownedListing(env, owner.userId, 'Card & <Co>');
  await env.services
    .db('listings')
    .where({ id })
    .update({ headline: 'Cards for "every" link & preview, with a headline long enough to wrap over lines' });
  const before = (await api(env, 'GET', `/listings/${slug}`)).body;
  t.is(before.image_url, null);
  t.regex(before.card_image_url, new RegExp(`^${env.baseUrl}/media/cards/${slug}\\.png\\?v=[0-9a-f]{16}$`));
  const card = await fetchRaw(before.card_image_url);
  t.is(card.status, 200);
  t.is(card.headers['content-type'], 'image/png');
  t.is(card.headers['cache-control'], 'public, max-age=31536000, immutable');
  t.like(await sharp(card.body).metadata(), { format: 'png', width: 1200, height: 630 });
  t.is((await fetchRaw(before.card_image_url, 'GET', { 'If-None-Match': card.headers.etag! })).status, 304);
  t.is((await fetchRaw(`/media/cards/${slug}.png`)).headers['cache-control'], 'public, max-age=300');

  // A new logo is a new card (another URL, other pixels where the logo sits).
  await api(env, 'PUT', `/me/listings/${id}/logo`, {
    key: owner.key,
    body: { image_base64: (await imageBytes('png', 200, 200)).toString('base64') },
  });
  const after = (await api(env, 'GET', `/listings/${slug}`)).body;
  t.not(after.card_image_url, before.card_image_url);
  const withLogo = await fetchRaw(after.card_image_url);
  t.like(await sharp(withLogo.body).metadata(), { width: 1200, height: 630 });
  const pixel = async (png: Buffer) =>
    (await sharp(png).extract({ left: 150, top: 150, width: 1, height: 1 }).raw().toBuffer()).toString('hex');
  t.not(await pixel(withLogo.body), await pixel(card.body));
  t.is((await fetchRaw('/media/cards/no-such-listing.png')).status, 404);
});
