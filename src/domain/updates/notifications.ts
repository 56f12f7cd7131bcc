import type { Db } from '../../db/knex.ts';
import { siteKeys } from '../listings/listings.ts';

interface NotificationRow {
  id: number;
  kind: 'listing_update';
  created_at: Date;
  update_id: number;
  title: string;
  body: string;
  published_at: Date;
  listing_id: number;
  listing_name: string;
  listing_slug: string;
  site_id: number;
}

/** The user's in-app notifications, newest update first (not in the order the fan-out delivered them). */
export async function listNotifications(db: Db, userId: number, page: number, perPage: number) {
  const base = () => db('notifications as n').where('n.user_id', userId);
  const [rows, [{ count }], keys] = await Promise.all([
    base()
      .join('listing_updates as u', 'u.id', 'n.listing_update_id')
      .join('listings as l', 'l.id', 'u.listing_id')
      .orderBy([{ column: 'u.published_at', order: 'desc' }, { column: 'u.id', order: 'desc' }, { column: 'n.id', order: 'desc' }])
      .limit(perPage)
      .offset((page - 1) * perPage)
      .select(
        'n.id', 'n.kind', 'n.created_at', 'u.id as update_id', 'u.title', 'u.body', 'u.published_at',
        'l.id as listing_id', 'l.name as listing_name', 'l.slug as listing_slug', 'l.site_id',
      ),
    base().count({ count: '*' }),
    siteKeys(db),
  ]);
  return {
    items: (rows as NotificationRow[]).map((r) => ({
      id: r.id,
      kind: r.kind,
      created_at: r.created_at.toISOString(),
      listing: { id: r.listing_id, name: r.listing_name, slug: r.listing_slug, site: keys.get(r.site_id)! },
      update: { id: r.update_id, title: r.title, body: r.body, published_at: r.published_at.toISOString() },
    })),
    page,
    per_page: perPage,
    total: Number(count),
  };
}
