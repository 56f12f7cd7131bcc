import test from 'ava';
import { castVote, voteRefusal, withdrawVote, type VoteRefusal } from '../../../src/domain/ranking/votes.ts';
import { addWeeks, isoWeekStart, launchWeekEnd } from '../../../src/workflows/contracts/weeks.ts';
import { ManualClock } from '../../../src/domain/time/clock.ts';
import { startTestEnv, type TestEnv } from '../../helpers/env.ts';
import { insertDraftListing, insertLiveListing } from '../../helpers/listings.ts';
import { voteCounts, voters, type Voter } from '../../helpers/votes.ts';

/**
 * The launch week is decided by the service's clock, not the database's: a vote counts for the
 * week when the clock is inside it, and can be taken back until the clock reaches the week's end
 * (`launch_week_end`, the same instant as `launchWeekEnd`). Eligibility is one rule with a reason.
 */

// A week years away from the machine's time, so only the moved clock can put a vote inside it.
const WEEK = isoWeekStart(new Date('2031-03-05T12:00:00Z'));
const clock = new ManualClock(`${WEEK}T09:00:00Z`);
let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url, {}, { clock });
});
test.after.always(() => env?.close());

const db = () => env.services.db;

async function listingOfWeek(name: string): Promise<{ id: number; slug: string }> {
  const id = await insertLiveListing(db(), { name, url: `https://${name.toLowerCase().replace(/\W+/g, '')}.example.org/` });
  await db()('listings').where({ id }).update({ launch_week: WEEK });
  const { slug } = (await db()('listings').where({ id }).first('slug'))!;
  return { id, slug };
}

/** Presses the listing page's Vote or Unvote button; undefined when the page shows no such button. */
async function press(v: Voter, slug: string, action: 'vote' | 'unvote'): Promise<number | undefined> {
  const page = await v.client.get(`/listings/${slug}`);
  const form = page.$(`form[action="/listings/${slug}/${action}"]`);
  if (form.length === 0) return undefined;
  const fields: Record<string, string> = {};
  form.find('input[type=hidden]').each((_, el) => {
    fields[page.$(el).attr('name')!] = page.$(el).val() as string;
  });
  return (await v.client.post(`/listings/${slug}/${action}`, fields, { referer: `${env.baseUrl}/listings/${slug}` })).status;
}

test.serial('a vote counts for the launch week by the clock, and Unvote is offered and honoured until the week ends', async (t) => {
  clock.set(`${WEEK}T09:00:00Z`);
  const { id, slug } = await listingOfWeek('Clockwork Week');
  const [v] = await voters(db(), env.baseUrl, 1, true, clock.now());
  t.is(await press(v!, slug, 'vote'), 303);
  t.like(await voteCounts(db(), id), { votes: 1, week_votes: 1 }, 'cast inside the week by the clock');
  const { created_at } = (await db()('votes').where({ listing_id: id }).first('created_at'))!;
  t.is(created_at.toISOString(), `${WEEK}T09:00:00.000Z`, "the vote's time is the clock's");

  // Sunday 23:59:59.999 UTC: still the week; the vote can be taken back and cast again.
  clock.set(new Date(launchWeekEnd(WEEK).getTime() - 1));
  t.is(await press(v!, slug, 'unvote'), 303);
  t.like(await voteCounts(db(), id), { votes: 0, week_votes: 0 });
  t.is(await press(v!, slug, 'vote'), 303);
  t.like(await voteCounts(db(), id), { votes: 1, week_votes: 1 });

  // Monday 00:00 UTC: the week is over; no Unvote button, and the operation refuses.
  clock.set(launchWeekEnd(WEEK));
  t.is(await press(v!, slug, 'unvote'), undefined, 'no Unvote once the week is over');
  await t.throwsAsync(() => withdrawVote(db(), v!.id, id, clock.now()), { message: /launch week of this listing is over/ });
  t.like(await voteCounts(db(), id), { votes: 1, week_votes: 1 });
});

test.serial('a vote cast after the launch week counts in total but not for the week', async (t) => {
  clock.set(`${addWeeks(WEEK, 1)}T00:00:00Z`);
  const { id } = await listingOfWeek('Latecomer Week');
  const [v] = await voters(db(), env.baseUrl, 1, true, clock.now());
  await castVote(db(), v!.id, id, clock.now());
  t.like(await voteCounts(db(), id), { votes: 1, week_votes: 0 });
});

test('launch_week_end in SQL and launchWeekEnd in TypeScript name the same instant; in_launch_week is [Monday, next Monday)', async (t) => {
  for (const monday of ['2026-11-23', '2026-12-28', '2027-12-27', '2032-02-23', WEEK]) {
    const { rows } = await db().raw(
      `SELECT launch_week_end(?::date) AS ends,
         in_launch_week(?::timestamptz - interval '1 millisecond', ?::date) AS last_ms,
         in_launch_week(?::timestamptz, ?::date) AS next_monday,
         in_launch_week(?::timestamptz, ?::date) AS first_ms,
         in_launch_week(?::timestamptz - interval '1 millisecond', ?::date) AS before`,
      [monday, launchWeekEnd(monday), monday, launchWeekEnd(monday), monday, `${monday}T00:00:00Z`, monday, `${monday}T00:00:00Z`, monday],
    );
    t.is(rows[0].ends.toISOString(), launchWeekEnd(monday).toISOString(), monday);
    t.like(rows[0], { last_ms: true, next_monday: false, first_ms: true, before: false }, monday);
  }
  t.is(launchWeekEnd('2026-11-23').toISOString(), '2026-11-30T00:00:00.000Z');
});

test('vote eligibility is one rule with its reason: castVote refuses with the code voteRefusal names', async (t) => {
  const { id } = await listingOfWeek('Eligibility Week');
  const [confirmed] = await voters(db(), env.baseUrl, 1, true, clock.now());
  const [unconfirmed] = await voters(db(), env.baseUrl, 1, false, clock.now());
  const [owner, voided] = await voters(db(), env.baseUrl, 2, true, clock.now());
  const owned = await insertLiveListing(db(), { name: 'Owned Week', url: 'https://ownedweek.example.org/', ownerId: owner!.id });
  const draft = await insertDraftListing(db(), { name: 'Draft Week', url: 'https://draftweek.example.org/' });
  await db()('voided_votes').insert({ listing_id: id, user_id: voided!.id, voted_at: clock.now(), in_launch_week: true, reason: 'ring' });
  const cases: [number, number, VoteRefusal | null, string | null][] = [
    [confirmed!.id, id, null, null],
    [confirmed!.id, draft, 'not_found', 'not_found'],
    [confirmed!.id, 999_999_999, 'not_found', 'not_found'],
    [unconfirmed!.id, id, 'email_unconfirmed', 'email_unconfirmed'],
    [owner!.id, owned, 'own_listing', 'own_listing'],
    [voided!.id, id, 'vote_voided', 'vote_voided'],
  ];
  for (const [userId, listingId, refusal, code] of cases) {
    t.is(await voteRefusal(db(), userId, listingId), refusal, `${userId} on ${listingId}`);
    if (code) {
      const stored = () => db()('votes').where({ listing_id: listingId, user_id: userId }).first('user_id');
      const err = await t.throwsAsync(() => castVote(db(), userId, listingId, clock.now()));
      t.is((err as unknown as { code?: string }).code, code);
      t.is(await stored(), undefined, 'a refused vote stores nothing');
    } else {
      t.like(await castVote(db(), userId, listingId, clock.now()), { changed: true });
      t.like(await castVote(db(), userId, listingId, clock.now()), { changed: false, voted: true }, 'voting twice changes nothing');
    }
  }
});
