import test from 'ava';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { checkout, inDays, mondayIn, priceOf, promo, quote } from '../helpers/orders.ts';
import { isoWeekLabel } from '../../src/workflows/contracts/weeks.ts';
import { addDays } from '../../src/domain/orders/product-options.ts';

type User = { userId: number; key: string; email: string };
let env: TestEnv;
let owner: User;
let other: User;
let listingId: number;
let othersListing: number;

test.before(async () => {
  env = await startTestEnv(import.meta.url, { CATALOG_CACHE_TTL_MS: '0' });
  [owner, other] = await Promise.all([env.user(), env.user()]);
  listingId = await insertLiveListing(env.services.db, { name: 'Quote Rockets', ownerId: owner.userId });
  othersListing = await insertLiveListing(env.services.db, { name: 'Not Yours', ownerId: other.userId });
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const item = (product: string, options: Record<string, unknown> = {}, id = listingId) => ({ product, listing_id: id, options });
const usQuote = (items: unknown[], extra: Record<string, unknown> = {}, user = owner) =>
  quote(env, user.key, { items, billing_country: 'US', ...extra });

test('list_products publishes the options schema that validates items', async (t) => {
  const res = await api(env, 'GET', '/products');
  const featured = res.body.items.find((p: { key: string }) => p.key === 'featured');
  t.like(featured.options, { type: 'object', properties: { weeks: { type: 'integer', minimum: 1, maximum: 12 } }, required: ['weeks'] });
  const billboard = res.body.items.find((p: { key: string }) => p.key === 'billboard');
  t.like(billboard.options.properties.days, { minimum: 7, default: 7 });
  t.is(res.body.items.find((p: { key: string }) => p.key === 'categories').options.properties.categories.maxItems, 5);
});

test('list_products says what one unit is; the price is per unit', async (t) => {
  const res = await api(env, 'GET', '/products');
  t.is(res.status, 200);
  const units = Object.fromEntries(res.body.items.map((p: { key: string; unit: string }) => [p.key, p.unit]));
  t.deepEqual(units, { launch: 'item', featured: 'week', categories: 'category', billboard: 'day', unlock_section: 'item' });
  for (const p of res.body.items) t.is(p.price_cents, await priceOf(db(), p.key), p.key);
});

test('a quote has the exact shape, in integer cents and basis points', async (t) => {
  const launch = await priceOf(db(), 'launch');
  const featured = await priceOf(db(), 'featured');
  const thisWeek = mondayIn(0);
  const res = await usQuote([item('launch'), item('featured', { weeks: 3, start_week: isoWeekLabel(thisWeek) })]);
  t.is(res.status, 200, JSON.stringify(res.body));
  const line = (product: string, options: object, unit: string, quantity: number, price: number, weeks: string[] | null) => ({
    product,
    listing_id: listingId,
    listing_name: 'Quote Rockets',
    options,
    unit,
    quantity,
    unit_price_cents: price,
    amount_cents: quantity * price,
    discount_cents: 0,
    net_cents: quantity * price,
    vat_cents: 0,
    weeks,
  });
  const { current_week: currentWeek, ...priced } = res.body;
  t.like(currentWeek, { week: isoWeekLabel(thisWeek), ends_at: `${addDays(thisWeek, 7)}T00:00:00.000Z` });
  t.regex(currentWeek.notice, /^This week ends in \d+ (minute|hour|day)/);
  t.deepEqual(priced, {
    currency: 'USD',
    lines: [
      line('launch', {}, 'item', 1, launch, null),
      line(
        'featured',
        { weeks: 3, start_week: thisWeek },
        'week',
        3,
        featured,
        [0, 1, 2].map((i) => isoWeekLabel(addDays(thisWeek, 7 * i))),
      ),
    ],
    subtotal_cents: launch + 3 * featured,
    discount_cents: 0,
    net_cents: launch + 3 * featured,
    vat: { country: 'US', rate_bp: 0, treatment: 'outside_eu', note: 'Outside the EU: no EU VAT charged.', amount_cents: 0 },
    total_cents: launch + 3 * featured,
    promo: null,
  });
});

test('prices are per unit: weeks featured, billboard days, categories', async (t) => {
  const cases: [Record<string, unknown>, string, number][] = [
    [item('featured', { weeks: 1 }), 'featured', 1],
    [item('featured', { weeks: 4 }), 'featured', 4],
    [item('featured', { weeks: 12 }), 'featured', 12],
    [item('billboard', { start_date: inDays(200), days: 7 }), 'billboard', 7],
    [item('billboard', { start_date: inDays(200), days: 90 }), 'billboard', 90],
    [item('categories', { categories: ['ai', 'data', 'design'] }), 'categories', 3],
    [item('unlock_section', { section: 'faqs' }), 'unlock_section', 1],
  ];
  for (const [one, product, quantity] of cases) {
    const unit = await priceOf(db(), product);
    const res = await usQuote([one]);
    t.is(res.status, 200, JSON.stringify(res.body));
    t.like(res.body.lines[0], { quantity, unit_price_cents: unit, amount_cents: quantity * unit, net_cents: quantity * unit }, product);
    t.is(res.body.total_cents, quantity * unit, `${product} × ${quantity}`);
  }
  // The checkout prices with the same function and snapshots the unit price into the order's lines.
  const order = await checkout(env, owner.key, { items: [item('featured', { weeks: 4 })], billing_country: 'DE' });
  t.is(order.status, 201, JSON.stringify(order.body));
  const unit = await priceOf(db(), 'featured');
  t.like(order.body.lines[0], { unit: 'week', quantity: 4, unit_price_cents: unit, amount_cents: 4 * unit, listing_name: 'Quote Rockets' });
  t.is(order.body.vat.amount_cents, Math.floor((4 * unit * 1900 + 5000) / 10000));
  const row = await db()('order_lines')
    .join('orders', 'orders.id', 'order_lines.order_id')
    .where('orders.number', order.body.number)
    .first();
  t.like(row, { unit: 'week', quantity: 4, unit_price_cents: unit, amount_cents: 4 * unit, listing_name: 'Quote Rockets' });
});

test('option refusals name the item index and field', async (t) => {
  const cases: [unknown[], number, string][] = [
    [[item('featured', { weeks: 0 })], 400, 'items.0.options.weeks'],
    [[item('launch'), item('featured', { weeks: 13 })], 400, 'items.1.options.weeks'],
    [[item('featured', { weeks: 2, extra: 1 })], 400, 'items.0.options.extra'],
    [[item('categories', { categories: ['ai', 'nope'] })], 400, 'items.0.options.categories.1'],
    [[item('categories', { categories: ['ai', 'data', 'design', 'games', 'hr', 'sales'] })], 400, 'items.0.options.categories'],
    [[item('categories', { categories: [] })], 400, 'items.0.options.categories'],
    [[item('billboard', { start_date: inDays(3), days: 6 })], 400, 'items.0.options.days'],
    [[item('billboard', { start_date: '2026-02-30' })], 400, 'items.0.options.start_date'],
    [[item('billboard', { start_date: inDays(0) })], 422, 'items.0.options.start_date'],
    [[item('launch', { week: '2026-13-01' })], 400, 'items.0.options.week'],
    [[item('launch', { week: mondayIn(-1) })], 422, 'items.0.options.week'],
    [[item('launch', { week: mondayIn(13) })], 422, 'items.0.options.week'],
    [[item('unlock_section', { section: 'photos' })], 400, 'items.0.options.section'],
    [[{ product: 'moon' }], 400, 'items.0.product'],
    [[{ product: 'featured', options: { weeks: 1 } }], 400, 'items.0.listing_id'],
  ];
  for (const [items, status, path] of cases) {
    const res = await usQuote(items);
    t.is(res.status, status, `${path}: ${JSON.stringify(res.body)}`);
    t.true(
      res.body.errors.some((e: { path: string }) => e.path === path),
      `${path}: ${JSON.stringify(res.body.errors)}`,
    );
  }
});

test('launch weeks: this week up to 12 ahead, as a Monday or an ISO week label', async (t) => {
  t.is((await usQuote([item('launch', { week: mondayIn(0) })])).status, 200);
  const res = await usQuote([item('launch', { week: isoWeekLabel(mondayIn(12)) })]);
  t.is(res.status, 200, JSON.stringify(res.body));
  t.deepEqual(res.body.lines[0].options, { week: mondayIn(12) });
  const notMonday = await usQuote([item('launch', { week: inDays(((8 - new Date().getUTCDay()) % 7) + 1) })]);
  t.is(notMonday.status, 400);
});

test('a launch week needs a paid slot left, at quote and at checkout', async (t) => {
  const week = mondayIn(5);
  const weeks = (await api(env, 'GET', '/launch-weeks')).body.items as { week_start: string; paid_slots: number }[];
  const { paid_slots: perWeek } = weeks.find((w) => w.week_start === week)!;
  const siteId = (await db()('sites').where({ key: 'main' }).first('id'))!.id as number;
  await db()('launch_weeks').insert({ site_id: siteId, week_start: week }).onConflict(['site_id', 'week_start']).ignore();
  const takeSlot = async (kind: 'free' | 'paid') => {
    const id = await insertLiveListing(db(), { name: `Slot ${kind} ${Math.random().toString(36).slice(2, 8)}`, ownerId: other.userId });
    await db()('launch_slots').insert({ listing_id: id, site_id: siteId, week_start: week, kind });
  };
  for (let i = 0; i < perWeek - 1; i++) await takeSlot('paid');
  await takeSlot('free'); // free slots are another queue
  const items = [item('featured', { weeks: 1 }), item('launch', { week })];
  t.is((await usQuote(items)).status, 200, 'one paid slot is left');

  await takeSlot('paid');
  for (const res of [await usQuote(items), await checkout(env, owner.key, { items, billing_country: 'US' })]) {
    t.is(res.status, 409, JSON.stringify(res.body));
    t.is(res.body.code, 'sold_out');
    t.deepEqual(
      res.body.errors.map((e: { path: string }) => e.path),
      ['items.1.options.week'],
    );
    t.regex(res.body.errors[0].message, new RegExp(`No paid launch slot is left in ${isoWeekLabel(week)}`));
  }
  t.is(await db()('order_lines').where({ product: 'launch' }).whereRaw(`options->>'week' = ?`, [week]).first('id'), undefined);
  // A listing that holds one of the week's paid slots already keeps it: buying its launch again is priced.
  const holder = await db()('launch_slots').where({ site_id: siteId, week_start: week, kind: 'paid' }).first('listing_id');
  await db()('listings').where({ id: holder!.listing_id }).update({ owner_id: owner.userId });
  t.is((await usQuote([item('launch', { week }, holder!.listing_id)])).status, 200);
});

test("another owner's listing is not found; an already unlocked section is refused", async (t) => {
  const res = await usQuote([item('featured', { weeks: 1 }, othersListing)]);
  t.is(res.status, 404);
  t.is(res.body.code, 'not_found');
  await db()('listings')
    .where({ id: listingId })
    .update({ unlocked_sections: ['story'] });
  const unlocked = await usQuote([item('unlock_section', { section: 'story' })]);
  t.is(unlocked.status, 422);
  t.like(unlocked.body, { code: 'order_item_refused', errors: [{ path: 'items.0.options.section' }] });
  t.is((await usQuote([item('unlock_section', { section: 'faqs' })])).status, 200);
});

test('a billboard overlapping a booked one is refused with the first free date', async (t) => {
  const order = await checkout(env, owner.key, { items: [item('billboard', { start_date: inDays(40), days: 7 })], billing_country: 'US' });
  t.is(order.status, 201, JSON.stringify(order.body));
  const line = await db()('order_lines')
    .join('orders', 'orders.id', 'order_lines.order_id')
    .where('orders.number', order.body.number)
    .first('order_lines.id');
  const site = await db()('sites').where({ key: 'main' }).first('id');
  await db()('billboard_days').insert(
    Array.from({ length: 7 }, (_, i) => ({ site_id: site!.id, day: inDays(40 + i), order_line_id: line.id, listing_id: listingId })),
  );
  const res = await usQuote([item('billboard', { start_date: inDays(35), days: 7 })]);
  t.is(res.status, 409);
  t.is(res.body.code, 'sold_out');
  t.is(res.body.errors[0].path, 'items.0.options.start_date');
  t.true(res.body.errors[0].message.includes(inDays(47)), res.body.errors[0].message);
  t.is((await usQuote([item('billboard', { start_date: inDays(47), days: 7 })])).status, 200);
  t.is((await usQuote([item('billboard', { start_date: inDays(33), days: 7 })])).status, 200);
});

test('VAT table for an Irish seller', async (t) => {
  const price = await priceOf(db(), 'featured');
  const rows: [string, string | undefined, string, number][] = [
    ['IE', undefined, 'domestic', 2300],
    ['DE', undefined, 'eu_consumer', 1900],
    ['FR', 'FR40303265045', 'reverse_charge', 0],
    ['IE', 'IE6388047V', 'domestic', 2300],
    ['US', undefined, 'outside_eu', 0],
  ];
  for (const [country, vatNumber, treatment, rate] of rows) {
    const res = await quote(env, owner.key, { items: [item('featured', { weeks: 1 })], billing_country: country, vat_number: vatNumber });
    t.is(res.status, 200, JSON.stringify(res.body));
    const vat = Math.floor((price * rate + 5000) / 10000);
    t.like(res.body.vat, { country, treatment, rate_bp: rate, amount_cents: vat }, country);
    t.is(res.body.total_cents, price + vat);
    t.is(res.body.lines[0].vat_cents, vat);
    if (treatment === 'reverse_charge') t.regex(res.body.vat.note, /Reverse charge/);
  }
  const bad = await quote(env, owner.key, { items: [item('featured', { weeks: 1 })], billing_country: 'FR', vat_number: 'FR40303265046' });
  t.is(bad.status, 422);
  t.like(bad.body, { code: 'vat_number_invalid', errors: [{ path: 'vat_number' }] });
  t.regex(bad.body.detail, /checksum/);
  const wrongCountry = await quote(env, owner.key, {
    items: [item('featured', { weeks: 1 })],
    billing_country: 'DE',
    vat_number: 'FR40303265045',
  });
  t.is(wrongCountry.status, 422);
  t.regex(wrongCountry.body.detail, /billing country/);
});

test('VAT is computed once on the discounted net and split by largest remainder', async (t) => {
  const code = await promo(db(), { percent: 33 });
  const res = await quote(env, owner.key, {
    items: [item('launch'), item('featured', { weeks: 1 }), item('categories', { categories: ['ai'] })],
    billing_country: 'DE',
    promo_code: `  ${code.toLowerCase()} `,
  });
  t.is(res.status, 200, JSON.stringify(res.body));
  const b = res.body;
  t.is(b.discount_cents, Math.floor((b.subtotal_cents * 3300 + 5000) / 10000));
  t.deepEqual(b.promo, { code, takes_off_cents: b.discount_cents });
  t.is(b.net_cents, b.subtotal_cents - b.discount_cents);
  t.is(b.vat.amount_cents, Math.floor((b.net_cents * 1900 + 5000) / 10000));
  const sum = (k: string) => b.lines.reduce((s: number, l: Record<string, number>) => s + l[k]!, 0);
  t.is(sum('discount_cents'), b.discount_cents);
  t.is(sum('net_cents'), b.net_cents);
  t.is(sum('vat_cents'), b.vat.amount_cents);
  t.is(b.total_cents, b.net_cents + b.vat.amount_cents);
});

test('unusable promo codes are refused with their reason', async (t) => {
  const user = await env.user();
  const mine = await insertLiveListing(db(), { name: 'Promo Target', ownerId: user.userId });
  const items = [item('featured', { weeks: 1 }, mine)];
  const cases: [string, string][] = [
    ['NO-SUCH-CODE', 'unknown'],
    [await promo(db(), { startsAt: new Date(Date.now() + 86_400_000) }), 'not_yet_valid'],
    [await promo(db(), { expiresAt: new Date(Date.now() - 1000) }), 'expired'],
    [await promo(db(), { minNetCents: 10_000_000 }), 'minimum_not_met'],
    [await promo(db(), { products: ['billboard'] }), 'not_applicable'],
  ];
  for (const [code, reason] of cases) {
    const res = await quote(env, user.key, { items, billing_country: 'US', promo_code: code });
    t.is(res.status, 422, code);
    t.like(res.body, { code: 'promo_code_invalid', reason });
  }
});

test('codes used up by checkouts: per account, the cap, first orders; a refused code builds nothing', async (t) => {
  // A fresh account: the one above has used its wrong tries.
  const user = await env.user();
  const mine = await insertLiveListing(db(), { name: 'Promo Target Two', ownerId: user.userId });
  const items = [item('featured', { weeks: 1 }, mine)];
  const once = await promo(db(), { perAccount: 1, amountCents: 500 });
  t.is((await checkout(env, user.key, { items, billing_country: 'US', promo_code: once })).status, 201);
  t.like((await quote(env, user.key, { items, billing_country: 'US', promo_code: once })).body, { reason: 'already_used' });
  const capped = await promo(db(), { maxRedemptions: 1 });
  t.is(
    (await checkout(env, owner.key, { items: [item('featured', { weeks: 1 })], billing_country: 'US', promo_code: capped })).status,
    201,
  );
  t.like((await quote(env, user.key, { items, billing_country: 'US', promo_code: capped })).body, { reason: 'exhausted' });
  const first = await promo(db(), { firstOrderOnly: true });
  await db()('orders').where({ user_id: user.userId }).update({ paid_at: db().fn.now() });
  t.like((await quote(env, user.key, { items, billing_country: 'US', promo_code: first })).body, { reason: 'first_order_only' });
  // A refused code builds nothing.
  const before = await db()('orders').where({ user_id: user.userId }).count({ n: '*' });
  t.is((await checkout(env, user.key, { items, billing_country: 'US', promo_code: 'NOPE' })).status, 422);
  t.deepEqual(await db()('orders').where({ user_id: user.userId }).count({ n: '*' }), before);
});

test('wrong promo tries stop at the limit with Retry-After; right codes never count', async (t) => {
  const user = await env.user();
  const mine = await insertLiveListing(db(), { name: 'Brute Force', ownerId: user.userId });
  const body = (promo_code: string) => ({ items: [item('featured', { weeks: 1 }, mine)], billing_country: 'US', promo_code });
  const good = await promo(db());
  for (let i = 0; i < 5; i++) {
    t.is((await quote(env, user.key, body(good))).status, 200);
    t.is((await quote(env, user.key, body(`WRONG${i}`))).status, 422);
  }
  const limited = await quote(env, user.key, body('WRONG9'));
  t.is(limited.status, 429);
  t.is(limited.body.code, 'rate_limited');
  const retry = Number(limited.headers.get('retry-after'));
  t.true(retry > 800 && retry <= 900, String(retry));
  // Even the right code waits now; a quote without a code does not.
  t.is((await quote(env, user.key, body(good))).status, 429);
  t.is((await quote(env, user.key, { items: [item('featured', { weeks: 1 }, mine)], billing_country: 'US' })).status, 200);
});

test('the wrong-try limit is exact under concurrency: of 30 parallel wrong tries, 5 are evaluated and 25 get 429', async (t) => {
  const user = await env.user();
  const mine = await insertLiveListing(db(), { name: 'Parallel Guesses', ownerId: user.userId });
  const body = (promo_code: string) => ({ items: [item('featured', { weeks: 1 }, mine)], billing_country: 'US', promo_code });
  const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => quote(env, user.key, body(`GUESS${i}`))));
  const statuses = answers.map((a) => a.status);
  t.is(statuses.filter((s) => s === 422).length, 5, statuses.join(' '));
  t.is(statuses.filter((s) => s === 429).length, 25, statuses.join(' '));
  for (const limited of answers.filter((a) => a.status === 429)) {
    t.is(limited.body.code, 'rate_limited');
    t.true(Number(limited.headers.get('retry-after')) >= 1);
  }
});

test('an order too large for one checkout is refused, never a 500', async (t) => {
  // On the makers site, whose prices no other test here reads.
  const makers = await insertLiveListing(db(), { name: 'Big Spender', ownerId: owner.userId, site: 'makers' });
  await db()('products')
    .whereIn('site_id', db()('sites').where({ key: 'makers' }).select('id'))
    .where({ key: 'billboard' })
    .update({ price_cents: 50_000_000 });
  const body = { items: [item('billboard', { start_date: inDays(30), days: 90 }, makers)], billing_country: 'US' };
  const host = { host: 'makers.localhost' };
  const built = await api(env, 'POST', '/orders/checkout', { key: owner.key, body, headers: host });
  t.like(built.body, { status: 422, code: 'order_item_refused' });
  const refused = await quote(env, owner.key, body, host);
  t.like(refused.body, { status: 422, code: 'order_item_refused', errors: [{ path: 'items' }] });
  t.regex(refused.body.detail, /USD 45000000\.00 before VAT, above the USD 10000000\.00/);
  t.is(
    (await quote(env, owner.key, { ...body, items: [item('billboard', { start_date: inDays(30), days: 14 }, makers)] }, host)).status,
    200,
  );
});
