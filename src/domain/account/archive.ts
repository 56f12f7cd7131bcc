import { listConnectedApps } from '../../auth/oauth/grants.ts';
import type { Db } from '../../db/knex.ts';

/** The archive's format; a later change to what it holds raises it. */
export const ARCHIVE_VERSION = 1;

/**
 * Everything the service holds about a person, as one JSON document (docs/accounts.md lists it).
 * Secrets stay out: password and key hashes, session ids, checkout and claim tokens; API keys
 * appear by name and prefix only.
 */
export async function buildArchive(db: Db, userId: number, now: Date): Promise<Record<string, unknown>> {
  const by = (table: string, column = 'user_id') => db(table).where(column, userId);
  const [account] = await db('users').where({ id: userId }).select('id', 'email', 'email_verified_at', 'created_at', 'updated_at');
  const sections = {
    founder_profile: (await by('founder_profiles').select('display_name', 'bio', 'links', 'created_at', 'updated_at'))[0] ?? null,
    interview_answers: await by('interview_answers as a')
      .join('interview_questions as q', 'q.id', 'a.question_id')
      .select('q.id as question_id', 'a.answer', 'a.created_at', 'a.updated_at'),
    listings: await by('listings', 'owner_id').select('*').orderBy('id'),
    drafts: await by('drafts', 'owner_id').select('id', 'url', 'status', 'fields', 'listing_id', 'created_at', 'updated_at').orderBy('id'),
    edits: await by('listing_versions', 'editor_id').select('id', 'listing_id', 'operation', 'changes', 'created_at').orderBy('id'),
    comments: await by('comments')
      .select('id', 'listing_id', 'parent_id', 'body', 'status', 'created_at', 'edited_at', 'deleted_at')
      .orderBy('id'),
    votes: await by('votes').select('listing_id', 'created_at').orderBy('created_at'),
    orders: await ordersOf(db, userId),
    follows: await by('listing_followers').select('listing_id', 'created_at').orderBy('created_at'),
    claims: await by('claims').select('id', 'listing_id', 'method', 'email', 'status', 'created_at', 'closed_at').orderBy('id'),
    api_keys: await by('api_keys').select('name', 'prefix', 'scopes', 'created_at', 'last_used_at', 'revoked_at').orderBy('id'),
    connected_apps: (await listConnectedApps(db, userId)).map((a) => ({
      client_name: a.clientName,
      scopes: a.scopes,
      granted_at: a.grantedAt,
    })),
    sign_in_identities: await by('sign_in_identities').select('provider', 'email', 'created_at', 'last_used_at').orderBy('id'),
    newsletter_subscriptions: await db('newsletter_subscribers as n')
      .join('sites as s', 's.id', 'n.site_id')
      .where((q) => q.where('n.user_id', userId).orWhereRaw('lower(n.email) = lower(?)', [account?.email ?? '']))
      .select('s.key as site', 'n.email', 'n.confirmed_at', 'n.unsubscribed_at', 'n.created_at'),
    mail_choices: await by('mail_stops').select('kind', 'listing_id', 'created_at'),
    sessions: await by('web_sessions').select('device_label', 'created_at', 'last_seen_at'),
  };
  return { format: 'listing-directory-account-export', version: ARCHIVE_VERSION, generated_at: now.toISOString(), account, ...sections };
}

async function ordersOf(db: Db, userId: number): Promise<unknown[]> {
  const orders = await db('orders')
    .where({ user_id: userId })
    .orderBy('id')
    .select(
      'id',
      'number',
      'status',
      'currency',
      'billing',
      'total_cents',
      'paid_cents',
      'paid_at',
      'invoice_label',
      'invoice_seller',
      'created_at',
    );
  const lines = await db('order_lines')
    .whereIn(
      'order_id',
      orders.map((o) => o.id),
    )
    .orderBy(['order_id', 'position'])
    .select(
      'order_id',
      'product',
      'listing_id',
      'listing_name',
      'options',
      'unit',
      'quantity',
      'unit_price_cents',
      'amount_cents',
      'discount_cents',
      'net_cents',
      'vat_cents',
      'refunded_at',
    );
  return orders.map(({ id, ...o }) => ({ ...o, lines: lines.filter((l) => l.order_id === id).map(({ order_id: _, ...l }) => l) }));
}
