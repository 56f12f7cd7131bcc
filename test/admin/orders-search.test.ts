import test from 'ava';
import { applyPayment, storePaymentEvent } from '../../src/domain/orders/payment.ts';
import { toPaymentEvent } from '../../src/domain/orders/payment-port.ts';
import { searchOrders } from '../../src/domain/orders/search.ts';
import { admin, adminInProcess } from '../helpers/admin.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { checkout, succeededEvent } from '../helpers/orders.ts';

// Support finds an order: orders:show (who bought it, what each line covers) and orders:list
// with its filters, over the domain's searchOrders that a staff operation will wrap.

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const run = (...args: string[]) => adminInProcess(env, ...args);

async function order(key: string, listingId: number, billingName: string | null = null) {
  const res = await checkout(env, key, {
    items: [{ product: 'featured', listing_id: listingId, options: { weeks: 2 } }],
    billing_country: 'IE',
  });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  if (billingName)
    await db()('orders')
      .where({ number: res.body.number })
      .update({ billing: { name: billingName, country: 'IE', vat_number: null } });
  return res.body as { number: string; total_cents: number };
}

async function pay(o: { number: string; total_cents: number }) {
  const event = succeededEvent(o.number, o.total_cents);
  const stored = await storePaymentEvent(db(), 'test', toPaymentEvent(event), event);
  await applyPayment(db(), env.services.config, o.number, stored.id);
}

const numbersOf = (stdout: string) =>
  stdout
    .split('\n')
    .slice(1)
    .filter((l) => l.startsWith('LD-'))
    .map((l) => l.split('\t')[0])
    .sort();

test('orders:show names the buyer’s email and billing name, the invoice, and each line as the buyer reads it', async (t) => {
  const buyer = await env.user();
  const listingId = await insertLiveListing(db(), { name: 'Shown Co', ownerId: buyer.userId });
  const o = await order(buyer.key, listingId, 'Shown Co Ltd');
  await pay(o);
  // Through main.ts once, as support runs it.
  const shown = await admin(env, 'orders:show', '--number', o.number.toLowerCase());
  t.is(shown.code, 0, shown.stderr);
  t.regex(shown.stdout, new RegExp(`^order ${o.number}\\tpaid`, 'm'));
  t.regex(shown.stdout, new RegExp(`^buyer ${buyer.email}\\tbilling name "Shown Co Ltd"\\tcountry IE$`, 'm'));
  t.regex(shown.stdout, /\tinvoice INV-MAIN-\d{6}$/m);
  t.regex(shown.stdout, /^seller "Listing Directory"\taddress -\tVAT ID -\tcountry IE$/m);
  // The line as lineText() words it, with the weeks it covers.
  t.regex(
    shown.stdout,
    /^line 0\tfeatured\tlisting \d+\tFeatured placement for Shown Co \(weeks of \d+ \w+( \d{4})? and \d+ \w+ \d{4}\): 2 weeks × USD \d+\.\d{2}\tnet /m,
  );
});

test('orders:list filters by buyer email, listing, status and dates; bad filters are named', async (t) => {
  const alice = await env.user();
  const bob = await env.user();
  const rockets = await insertLiveListing(db(), { name: 'Search Rockets', ownerId: alice.userId, url: 'https://rockets.example.org/' });
  const boats = await insertLiveListing(db(), { name: 'Search Boats', ownerId: bob.userId, url: 'https://boats.example.net/' });
  const slug = (await db()('listings').where({ id: rockets }).first('slug'))!.slug;
  const a1 = await order(alice.key, rockets, 'Alice Rockets Ltd');
  const a2 = await order(alice.key, rockets);
  const b1 = await order(bob.key, boats);
  await pay(a1);
  await db()('orders')
    .where({ number: a2.number })
    .update({ created_at: new Date('2025-03-10T12:00:00Z') });
  await db()('orders')
    .where({ number: b1.number })
    .update({ created_at: new Date('2025-03-11T08:00:00Z') });

  const list = async (...args: string[]) => {
    const res = await run('orders:list', ...args);
    t.is(res.code, 0, `${args.join(' ')}: ${res.stderr}`);
    return res;
  };
  const byEmail = await list('--email', alice.email.toUpperCase());
  t.deepEqual(numbersOf(byEmail.stdout), [a1.number, a2.number].sort());
  t.regex(byEmail.stdout, /^number\tsite\tstatus\tcreated\temail\tbilling name\ttotal\tinvoice\tlistings$/m);
  t.regex(
    byEmail.stdout,
    new RegExp(
      `^${a1.number}\\tmain\\tpaid\\t[^\\t]+\\t${alice.email}\\tAlice Rockets Ltd\\tUSD \\d+\\.\\d{2}\\tINV-MAIN-\\d{6}\\tSearch Rockets$`,
      'm',
    ),
  );
  t.deepEqual(numbersOf((await list('--listing', slug)).stdout), [a1.number, a2.number].sort());
  t.deepEqual(numbersOf((await list('--listing', String(boats))).stdout), [b1.number]);
  t.deepEqual(numbersOf((await list('--email', alice.email, '--status', 'pending')).stdout), [a2.number]);
  t.deepEqual(numbersOf((await list('--from', '2025-03-10', '--to', '2025-03-10')).stdout), [a2.number]);
  t.deepEqual(numbersOf((await list('--from', '2025-03-10', '--to', '2025-03-11T23:00:00Z')).stdout), [a2.number, b1.number].sort());
  t.deepEqual(numbersOf((await list('--listing', slug, '--status', 'refunded')).stdout), []);
  t.regex((await list('--email', 'nobody@example.com')).stdout, /\(no orders match\)/);

  // The same search is the domain's, for the staff console to wrap.
  t.deepEqual(
    (await searchOrders(db(), { email: alice.email, listing: slug, status: 'paid' })).map((o) => o.number),
    [a1.number],
  );

  const bad: [string[], RegExp][] = [
    [['--status', 'lost'], /--status: Must be one of pending, paid/],
    [['--from', '2025-02-30'], /--from: Must be a date/],
    [['--from', '2025-03-12', '--to', '2025-03-11'], /--to: Must be after from/],
    [['--limit', 'many'], /--limit must be a whole number/],
  ];
  for (const [args, reason] of bad) {
    const res = await run('orders:list', ...args);
    t.is(res.code, 1, args.join(' '));
    t.regex(res.stderr, reason, args.join(' '));
  }
});

test('an unknown orders: command, or any unknown command, is answered as unknown', async (t) => {
  const res = await run('orders:find', '--email', 'a@example.com');
  t.is(res.code, 1);
  t.regex(res.stderr, /^Unknown command "orders:find"\./);
  t.false(res.stderr.includes('--number is required'));
  t.regex(res.stderr, /orders:list \[--email E\]/);
  const other = await run('listings:frobnicate');
  t.is(other.code, 2);
  t.regex(other.stderr, /^Unknown command "listings:frobnicate"\.\nUsage:/);
});
