import test from 'ava';
import { loadConfig } from '../../src/config/config.ts';
import { listingUpdateWorkflowId } from '../../src/workflows/contracts/workflow-ids.ts';
import { api, startTestEnv, type HttpResult, type TestEnv } from '../helpers/env.ts';
import { verifyEmail } from '../helpers/followers.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { serve, type TestSite } from '../helpers/site.ts';
import { mailsTo } from '../helpers/web.ts';
import { eventually } from '../helpers/eventually.ts';
import { temporalClient } from '../helpers/workflows.ts';

// One API key must not make us flood a third-party site with crawls or a follower's
// inbox with mail. The attacks are concurrent bursts from one key.
const MAIL_WINDOW_SECONDS = 4;

let env: TestEnv;
let site: TestSite;
/** Home-page requests the crawled site saw: one per crawl that really started. */
let crawls = 0;
test.before(async () => {
  env = await startTestEnv(import.meta.url, {
    DRAFTS_MAX_IN_FLIGHT: '3',
    DRAFTS_MAX_PER_HOUR: '5',
    UPDATES_MAX_PER_LISTING_PER_HOUR: '6',
    UPDATE_MAIL_WINDOW_SECONDS: String(MAIL_WINDOW_SECONDS),
  });
  await env.startWorkers();
  // A slow third-party site: crawls stay in flight long enough for a burst to pile up.
  site = await serve({
    '/': (_req, res) => {
      crawls += 1;
      setTimeout(
        () => res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Victim</title><h1>Victim site</h1><p>Hello.</p>'),
        1500,
      );
    },
  });
});
test.after.always(async () => {
  await site?.close();
  await env?.close();
});

const db = () => env.services.db;

function assertQuotaProblem(
  t: import('ava').ExecutionContext,
  res: HttpResult,
  quota: string,
  limit: number,
  windowSeconds: number | null,
) {
  t.is(res.status, 429, JSON.stringify(res.body));
  t.regex(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  t.like(res.body, { code: 'quota_exceeded', quota, limit, window_seconds: windowSeconds });
  const retryAfter = Number(res.headers.get('retry-after'));
  t.true(Number.isInteger(retryAfter) && retryAfter >= 1, String(retryAfter));
  t.is(res.body.retry_after_seconds, retryAfter);
}

test('quota settings have documented defaults', (t) => {
  const config = loadConfig({});
  t.deepEqual(config.quotas, { draftsInFlight: 3, draftsPerHour: 20, updatesPerListingPerHour: 6 });
  t.is(config.updates.mailWindowSeconds, 3600);
  t.throws(() => loadConfig({ DRAFTS_MAX_IN_FLIGHT: '0' }), { message: /DRAFTS_MAX_IN_FLIGHT/ });
});

test.serial('40 concurrent create_draft with one key start only the in-flight limit of crawls; then the hourly limit holds', async (t) => {
  const attacker = await env.user();
  const burst = await Promise.all(
    Array.from({ length: 40 }, () => api(env, 'POST', '/drafts', { key: attacker.key, body: { url: site.url } })),
  );
  const created = burst.filter((r) => r.status === 201);
  t.is(created.length, 3, burst.map((r) => r.status).join(','));
  for (const refused of burst.filter((r) => r.status !== 201)) assertQuotaProblem(t, refused, 'drafts_in_flight', 3, null);
  t.is(
    Number((await db()('drafts').where({ owner_id: attacker.userId }).count({ n: '*' }))[0].n),
    3,
    'refused drafts leave nothing behind',
  );

  // Only three crawls reach the site, however long we wait.
  await eventually(
    'the three drafts',
    async () =>
      (await db()('drafts').where({ owner_id: attacker.userId }).whereIn('status', ['crawling', 'drafting']).count({ n: '*' }))[0].n === 0,
    { timeoutMs: 60_000, intervalMs: 100 },
  );
  t.is(crawls, 3);

  // Another account is not held up by this one.
  const bystander = await env.user();
  t.is((await api(env, 'POST', '/drafts', { key: bystander.key, body: { url: site.url } })).status, 201);

  // The crawls ended: two more fit in the hour (5), the next is refused with the hour's window.
  for (let i = 0; i < 2; i++) t.is((await api(env, 'POST', '/drafts', { key: attacker.key, body: { url: site.url } })).status, 201);
  const hourly = await api(env, 'POST', '/drafts', { key: attacker.key, body: { url: site.url } });
  assertQuotaProblem(t, hourly, 'drafts_per_hour', 5, 3600);
  const retryAfter = Number(hourly.headers.get('retry-after'));
  t.true(retryAfter > 3500 && retryAfter <= 3600, String(retryAfter));
  // When the oldest drafts leave the hour, creating works again.
  await db()('drafts')
    .where({ owner_id: attacker.userId })
    .update({ created_at: db().raw(`created_at - interval '61 minutes'`) });
  t.is((await api(env, 'POST', '/drafts', { key: attacker.key, body: { url: site.url } })).status, 201);
});

test.serial('MCP callers get the same quota problem (no headers there, so the wait is in the body)', async (t) => {
  const user = await env.user();
  const { id: siteId } = (await db()('sites').where({ key: 'main' }).first('id'))!;
  await db()('drafts').insert(
    Array.from({ length: 3 }, () => ({ owner_id: user.userId, site_id: siteId, url: site.url, status: 'crawling' })),
  );
  const res = await api(env, 'POST', '/drafts', { key: user.key, body: { url: site.url } });
  assertQuotaProblem(t, res, 'drafts_in_flight', 3, null);
  const viaMcp = await fetch(`${env.baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${user.key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_draft', arguments: { url: site.url } } }),
  });
  const text = await viaMcp.text();
  const payload = JSON.parse(
    text.startsWith('event:') || text.startsWith('data:')
      ? text
          .split('\n')
          .find((l) => l.startsWith('data:'))!
          .slice(5)
      : text,
  );
  t.true(payload.result.isError);
  t.like(payload.result.structuredContent ?? JSON.parse(payload.result.content[0].text), {
    code: 'quota_exceeded',
    quota: 'drafts_in_flight',
    limit: 3,
  });
  t.is(Number((await db()('drafts').where({ owner_id: user.userId }).count({ n: '*' }))[0].n), 3);
});

test.serial('40 quick post_listing_update: only the hourly limit is published; a follower gets one mail, then one digest', async (t) => {
  const owner = await env.user();
  const follower = await env.user();
  const unverified = await env.user();
  await verifyEmail(db(), follower.userId);
  const listingId = await insertLiveListing(db(), { name: 'Chatty Corp', ownerId: owner.userId });
  for (const u of [follower, unverified]) t.is((await api(env, 'POST', `/listings/${listingId}/follow`, { key: u.key })).status, 200);

  const burst = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      api(env, 'POST', `/me/listings/${listingId}/updates`, { key: owner.key, body: { title: `News ${i}`, body: `Body ${i}` } }),
    ),
  );
  const published = burst.filter((r) => r.status === 201);
  t.is(published.length, 6, burst.map((r) => r.status).join(','));
  for (const refused of burst.filter((r) => r.status !== 201)) assertQuotaProblem(t, refused, 'updates_per_listing_per_hour', 6, 3600);
  t.is(Number((await db()('listing_updates').where({ listing_id: listingId }).count({ n: '*' }))[0].n), 6);

  // Every update is a notification; the mail is one at once...
  await eventually(
    'six notifications',
    async () => (await db()('notifications').where({ user_id: follower.userId }).count({ n: '*' }))[0].n === 6,
    { timeoutMs: 60_000, intervalMs: 100 },
  );
  // Each fan-out has sent what it sends at once: it finished, or it sleeps until the digest is due.
  const fanOuts = published.map((r) => listingUpdateWorkflowId(r.body.id));
  const { client, close } = await temporalClient(env);
  t.teardown(close);
  for (const id of fanOuts) {
    await eventually(`${id} to finish or wait for the digest`, async () => {
      const { status } = await client.workflow.getHandle(id).describe();
      if (status.name === 'COMPLETED') return true;
      return (await client.workflow.getHandle(id).fetchHistory()).events!.some((e) => e.timerStartedEventAttributes);
    });
  }
  let mails = await mailsTo(db(), follower.email);
  t.is(mails.length, 1, mails.map((m) => m.subject).join(' | '));
  const first = published.find((r) => mails[0]!.subject === `Chatty Corp: ${r.body.title}`);
  t.truthy(first, mails[0]!.subject);

  // ...and one digest of the other five once the window has passed.
  await eventually('the digest', async () => (await mailsTo(db(), follower.email)).length >= 2, {
    timeoutMs: (MAIL_WINDOW_SECONDS + 20) * 1000,
  });
  // Every fan-out has ended: nothing else mails about these updates.
  for (const id of fanOuts) await client.workflow.getHandle(id).result();
  mails = await mailsTo(db(), follower.email);
  t.is(mails.length, 2, mails.map((m) => m.subject).join(' | '));
  t.is(mails[1]!.subject, 'Chatty Corp: 5 new updates');
  for (const update of published.filter((r) => r !== first)) t.true(mails[1]!.body_text.includes(update.body.title), update.body.title);
  t.false(mails[1]!.body_text.includes(`${first!.body.title} (`), 'the update mailed at once is not repeated');
  t.is((await db()('notifications').where({ user_id: follower.userId, mail_pending: true })).length, 0);
  t.is((await mailsTo(db(), unverified.email)).length, 0, 'unverified addresses get no mail at all');

  // After the digest a new window starts: the next update waits again rather than mailing at once.
  await db()('listing_updates')
    .where({ listing_id: listingId })
    .update({ published_at: db().raw(`published_at - interval '2 hours'`) });
  const later = await api(env, 'POST', `/me/listings/${listingId}/updates`, {
    key: owner.key,
    body: { title: 'Later news', body: 'Later' },
  });
  t.is(later.status, 201);
  await eventually(
    'the later notification',
    async () => (await db()('notifications').where({ user_id: follower.userId }).count({ n: '*' }))[0].n === 7,
    { timeoutMs: 60_000, intervalMs: 100 },
  );
  t.is((await mailsTo(db(), follower.email)).length, 2);
  await eventually('the second digest', async () => (await mailsTo(db(), follower.email)).length >= 3, {
    timeoutMs: (MAIL_WINDOW_SECONDS + 20) * 1000,
  });
  t.is((await mailsTo(db(), follower.email)).at(-1)!.subject, 'Chatty Corp: 1 new update');
});

test.serial('a follower not mailed within the window gets each update at once', async (t) => {
  const owner = await env.user();
  const follower = await env.user();
  await verifyEmail(db(), follower.userId);
  const listingId = await insertLiveListing(db(), { name: 'Quiet Corp', ownerId: owner.userId });
  await api(env, 'POST', `/listings/${listingId}/follow`, { key: follower.key });
  const one = await api(env, 'POST', `/me/listings/${listingId}/updates`, { key: owner.key, body: { title: 'One', body: '1' } });
  t.is(one.status, 201);
  await eventually('the first mail', async () => (await mailsTo(db(), follower.email)).length === 1, {
    timeoutMs: 60_000,
    intervalMs: 100,
  });
  // The window passes before the next update.
  await db()('listing_followers')
    .where({ listing_id: listingId, user_id: follower.userId })
    .update({ last_mailed_at: db().raw(`now() - interval '1 hour'`) });
  t.is((await api(env, 'POST', `/me/listings/${listingId}/updates`, { key: owner.key, body: { title: 'Two', body: '2' } })).status, 201);
  await eventually('the second mail', async () => (await mailsTo(db(), follower.email)).length === 2, {
    timeoutMs: 60_000,
    intervalMs: 100,
  });
  t.deepEqual(
    (await mailsTo(db(), follower.email)).map((m) => m.subject),
    ['Quiet Corp: One', 'Quiet Corp: Two'],
  );
});
