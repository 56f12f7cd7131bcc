import type { Db } from '../../db/knex.ts';
import { pageOf } from '../../db/pages.ts';
import { absoluteUrl, paths } from '../../lib/paths.ts';
import { siteKeys } from '../listings/listings.ts';
import type { SitesCache } from '../sites/sites.ts';

interface NotificationRow {
  id: number;
  kind:
    | 'listing_update'
    | 'listing_claimed'
    | 'launch'
    | 'weekly_result'
    | 'order_refund'
    | 'webhook_disabled'
    | 'comment_reply'
    | 'listing_comment';
  created_at: Date;
  read_at: Date | null;
  comment_id: number | null;
  update_id: number | null;
  title: string;
  body: string;
  published_at: Date | null;
  listing_id: number;
  listing_name: string;
  listing_slug: string;
  site_id: number;
}

/**
 * The user's in-app notifications, newest first (by the update's published time, not the order the
 * fan-out delivered them): updates of followed listings, and notes about the user's own listings
 * (launch news, a weekly result, a claim) and the discussion (replies to the user's comments, comments
 * on their listings) that carry their own title and text.
 */
export async function listNotifications(db: Db, sites: SitesCache, userId: number, page: number, perPage: number, baseUrl: string) {
  const base = () => db('notifications as n').where('n.user_id', userId);
  const newestFirst = base()
    .leftJoin('listing_updates as u', 'u.id', 'n.listing_update_id')
    .join('listings as l', 'l.id', db.raw('coalesce(n.listing_id, u.listing_id)'))
    .orderByRaw('coalesce(u.published_at, n.created_at) DESC, n.id DESC')
    .select(
      'n.id',
      'n.kind',
      'n.created_at',
      'n.read_at',
      'n.comment_id',
      'u.id as update_id',
      db.raw('coalesce(u.title, n.title) AS title'),
      db.raw('coalesce(u.body, n.body) AS body'),
      'u.published_at',
      'l.id as listing_id',
      'l.name as listing_name',
      'l.slug as listing_slug',
      'l.site_id',
    );
  const [found, keys] = await Promise.all([pageOf<NotificationRow>(newestFirst, base(), page, perPage), siteKeys(db, sites)]);
  return {
    ...found,
    items: found.items.map((r) => ({
      id: r.id,
      kind: r.kind,
      created_at: r.created_at.toISOString(),
      read: r.read_at !== null,
      title: r.title,
      body: r.body,
      listing: { id: r.listing_id, name: r.listing_name, slug: r.listing_slug, site: keys.get(r.site_id)! },
      update: r.update_id === null ? null : { id: r.update_id, title: r.title, body: r.body, published_at: r.published_at!.toISOString() },
      comment:
        r.comment_id === null
          ? null
          : { id: r.comment_id, url: `${absoluteUrl(baseUrl, paths.listing(r.listing_slug))}#comment-${r.comment_id}` },
    })),
  };
}
