import test from 'ava';
import type { AppError } from '../../../src/errors/errors.ts';
import { insertDraftWithinQuota } from '../../../src/domain/drafts/drafts.ts';
import { insertListingUpdate } from '../../../src/domain/updates/updates.ts';
import { startTestEnv, type TestEnv } from '../../helpers/env.ts';
import { insertLiveListing } from '../../helpers/listings.ts';

/**
 * Hourly quotas are counted in the hour before the given "now", from rows stamped with that same
 * time: the refusal names the exact wait, and moving the time on by it lets the next one in,
 * without sleeping or rewriting rows into the past.
 */

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const HOUR = 3600_000;
const at = (base: Date, ms: number) => new Date(base.getTime() + ms);

test('drafts per hour: the third in an hour waits exactly until the first leaves the window', async (t) => {
  const { userId } = await env.user();
  const { id: siteId } = (await db()('sites').where({ key: 'main' }).first('id'))!;
  const quotas = { draftsInFlight: 10, draftsPerHour: 2, updatesPerListingPerHour: 1 };
  const t0 = new Date('2031-06-02T10:00:00Z');
  const draft = (n: number, now: Date) =>
    insertDraftWithinQuota(db(), { ownerId: userId, siteId, url: `https://q${n}.example/` }, quotas, now);
  await draft(1, t0);
  await draft(2, at(t0, 10 * 60_000));
  const err = (await t.throwsAsync(draft(3, at(t0, 20 * 60_000)))) as unknown as AppError;
  t.like(err, { code: 'quota_exceeded', extensions: { quota: 'drafts_per_hour', retry_after_seconds: 40 * 60 } });
  await t.throwsAsync(draft(3, at(t0, HOUR - 1)), { message: /At most 2 drafts per account per hour/ });
  t.truthy(await draft(3, at(t0, HOUR)), 'the first draft left the window an hour after it was made');
});

test('updates per listing per hour follow the given time too', async (t) => {
  const { userId } = await env.user();
  const listingId = await insertLiveListing(db(), { name: 'Quota Clockwork', url: 'https://quota-clockwork.example/', ownerId: userId });
  const t0 = new Date('2031-06-02T10:00:00Z');
  const post = (title: string, now: Date) => insertListingUpdate(db(), userId, listingId, { title, body: `${title}.` }, 1, now);
  const first = await post('First', t0);
  t.is(new Date(first.published_at).toISOString(), t0.toISOString());
  const err = (await t.throwsAsync(post('Second', at(t0, 45 * 60_000)))) as unknown as AppError;
  t.like(err, { extensions: { quota: 'updates_per_listing_per_hour', retry_after_seconds: 15 * 60 } });
  t.truthy(await post('Second', at(t0, HOUR)));
});
