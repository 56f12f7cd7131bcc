import type { Db } from '../../src/db/knex.ts';
import { words } from './founders.ts';
import { insertDraftListing } from './listings.ts';

/** A listing in `draft` (as submit_draft leaves it) of the owner, at the owner's website `url`. */
export async function draftListing(db: Db, ownerId: number, url: string, name = 'Launch Co'): Promise<{ id: number; slug: string }> {
  const id = await insertDraftListing(db, { name: `${name} ${Math.random().toString(36).slice(2, 8)}`, ownerId, url });
  const { slug } = (await db('listings').where({ id }).first('slug'))!;
  return { id, slug };
}

/** Our badge as an owner pastes it: a visible link to the listing page around the image. */
export const badgeHtml = (baseUrl: string, slug: string) =>
  `<!doctype html><html><body><h1>Our product</h1><footer><a href="${baseUrl}/listings/${slug}" rel="noopener"><img src="${baseUrl}/badges/${slug}.svg" alt="badge"></a></footer></body></html>`;

/** A founder profile that meets every rule, written straight to the tables (fast for many users). */
export async function insertCompleteProfile(db: Db, userId: number): Promise<void> {
  await db('founder_profiles')
    .insert({ user_id: userId, display_name: 'Ada Founder', bio: words(25, 'bio'), links: JSON.stringify(['https://ada.example.com/']) })
    .onConflict('user_id')
    .merge();
  await db('founder_photos')
    .insert({ user_id: userId, image: Buffer.from('webp'), etag: 'e1', width: 1, height: 1, source_format: 'png', source_bytes: 4 })
    .onConflict('user_id')
    .ignore();
}

/** Sets launch settings of a site (by key) straight in sites.settings. */
export async function siteSettings(db: Db, key: string, settings: Record<string, unknown>): Promise<void> {
  await db('sites')
    .where({ key })
    .update({ settings: db.raw('settings || ?::jsonb', [JSON.stringify(settings)]) });
}

/** Confirms a user's email address (launch mail goes to confirmed addresses only). */
export async function confirmEmail(db: Db, userId: number): Promise<void> {
  await db('users').where({ id: userId }).update({ email_verified_at: db.fn.now() });
}
