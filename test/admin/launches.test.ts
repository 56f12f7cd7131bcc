import test from 'ava';
import { readLaunchSettings } from '../../src/domain/launches/launch-settings.ts';
import { addWeeks, isoWeekLabel, isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { admin, adminInProcess, adminWith } from '../helpers/admin.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { badgeHtml, draftListing } from '../helpers/launches.ts';
import { serve, type TestSite } from '../helpers/site.ts';
import { temporalClient } from '../helpers/workflows.ts';

// sites:set, launches:list and launches:recheck as an operator runs them: the first run of each
// through main.ts (a real process), the other cases in this process.

let env: TestEnv;
let site: TestSite;
let page = '<p>nothing yet</p>';

test.before(async () => {
  env = await startTestEnv(import.meta.url);
  site = await serve({ '/': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page) });
});
test.after.always(async () => {
  await site?.close();
  await env?.close();
});

const db = () => env.services.db;
const siteId = async (key: string) => (await db()('sites').where({ key }).first('id'))!.id as number;

test.serial('sites:set changes only the launch settings given, and refuses bad values', async (t) => {
  const before = await db()('sites').where({ key: 'makers' }).first('settings');
  const res = await admin(env, 'sites:set', '--site', 'makers', '--free-slots', '3', '--paid-slots', '0', '--after-grace', 'unlist');
  t.is(res.code, 0, res.stderr);
  t.regex(res.stdout, /free_slots_per_week=3 paid_slots_per_week=0 badge_after_grace=unlist/);
  const settings = await readLaunchSettings(db(), await siteId('makers'));
  t.deepEqual(settings, {
    free_queue_weeks: before!.settings.free_queue_weeks,
    free_slots_per_week: 3,
    paid_slots_per_week: 0,
    badge_after_grace: 'unlist',
    short_week_hours: 72,
  });
  const after = await db()('sites').where({ key: 'makers' }).first('settings');
  t.is(after!.settings.seller_country, before!.settings.seller_country);

  const bad = [
    ['sites:set', '--free-slots', '3'],
    ['sites:set', '--site', 'nowhere', '--free-slots', '3'],
    ['sites:set', '--site', 'makers'],
    ['sites:set', '--site', 'makers', '--free-slots', '-1', '--free-queue-weeks', '53'],
    ['sites:set', '--site', 'makers', '--after-grace', 'delete'],
  ];
  const results = await Promise.all(bad.map((args) => adminInProcess(env, ...args)));
  results.forEach((res, i) => {
    t.is(res.code, 1, bad[i]!.join(' '));
    t.truthy(res.stderr.trim(), bad[i]!.join(' '));
  });
  t.deepEqual(await readLaunchSettings(db(), await siteId('makers')), settings);
});

test.serial('launches:list shows a week’s launches with their place and badge', async (t) => {
  const user = await env.user();
  const week = addWeeks(isoWeekStart(new Date()), 5);
  const ids: number[] = [];
  for (const name of ['First', 'Second']) {
    const listing = await draftListing(db(), user.userId, site.url, name);
    await db()('launch_weeks').insert({ site_id: 1, week_start: week }).onConflict().ignore();
    await db()('launch_slots').insert({ listing_id: listing.id, site_id: 1, week_start: week, kind: 'free' });
    await db()('listings').where({ id: listing.id }).update({ plan: 'free', status: 'scheduled', launch_week: week });
    ids.push(listing.id);
  }
  const res = await admin(env, 'launches:list', '--week', isoWeekLabel(week));
  t.is(res.code, 0, res.stderr);
  const lines = res.stdout.trim().split('\n');
  t.is(lines[0], 'listing\tsite\tweek\tplace\tstatus\tplan\tbadge\tname');
  t.deepEqual(
    lines.slice(1).map((l) => l.split('\t').slice(0, 7)),
    [
      [String(ids[0]), 'main', isoWeekLabel(week), '1', 'scheduled', 'free', 'unchecked'],
      [String(ids[1]), 'main', isoWeekLabel(week), '2', 'scheduled', 'free', 'unchecked'],
    ],
  );
  const [all, badWeek, empty] = await Promise.all([
    adminInProcess(env, 'launches:list'),
    adminInProcess(env, 'launches:list', '--week', '2020-W60'),
    adminInProcess(env, 'launches:list', '--week', isoWeekLabel(addWeeks(week, 1))),
  ]);
  t.regex(all.stdout, new RegExp(`^${ids[0]}\\t`, 'm'));
  t.is(badWeek.code, 1);
  t.is(empty.stdout.trim(), 'No launches.');
});

test.serial('launches:recheck checks the badge and restarts a closed flow for a listing that still waits', async (t) => {
  const user = await env.user();
  await db()('founder_profiles').insert({
    user_id: user.userId,
    display_name: 'Op',
    bio: 'x '.repeat(30),
    links: JSON.stringify(['https://op.example/']),
  });
  await db()('founder_photos').insert({
    user_id: user.userId,
    image: Buffer.from('x'),
    etag: 'e',
    width: 1,
    height: 1,
    source_format: 'png',
    source_bytes: 1,
  });
  const listing = await draftListing(db(), user.userId, site.url);
  await db()('listings').where({ id: listing.id }).update({ plan: 'free', status: 'awaiting_badge' });
  page = badgeHtml(env.baseUrl, listing.slug);
  const withTemporal = {
    TEMPORAL_ADDRESS: env.temporalAddress,
    TEMPORAL_NAMESPACE: env.namespace,
    BASE_URL: env.baseUrl,
    CRAWL_ALLOW_PRIVATE_NETWORKS: 'true',
  };
  const res = await adminWith(env, withTemporal, 'launches:recheck', '--listing', String(listing.id));
  t.is(res.code, 0, res.stderr);
  t.regex(res.stdout, /scheduled in \d{4}-W\d\d; badge present/);
  t.like(await db()('badge_checks').where({ listing_id: listing.id }).first(), { trigger: 'admin', status: 'present' });
  const { client, close } = await temporalClient(env);
  t.teardown(close);
  const history = await client.workflow.getHandle(`listing:${listing.id}`).fetchHistory();
  t.true(history.events!.some((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'recheck'));

  const draft = await draftListing(db(), user.userId, site.url);
  const [unknown, notAnId, noPlan] = await Promise.all([
    adminInProcess(env, 'launches:recheck', '--listing', '2000000000'),
    adminInProcess(env, 'launches:recheck', '--listing', 'x'),
    adminInProcess(env, 'launches:recheck', '--listing', String(draft.id)),
  ]);
  t.is(unknown.code, 1);
  t.is(notAnId.code, 1);
  t.is(noPlan.code, 1);
  t.regex(noPlan.stderr, /no launch plan/);
});
