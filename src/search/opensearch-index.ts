import { Client } from '@opensearch-project/opensearch';
import type { Db } from '../db/knex.ts';
import { PUBLIC_COLUMNS } from '../domain/listings/listing-row.ts';
import type { PublicListingRow } from './results.ts';
import { listingLexemes, type ListingLexemesRow } from './word-forms.ts';

/**
 * The directory's listings in OpenSearch: one document per live listing with the lexemes
 * PostgreSQL stored for its three search vectors (keywords, so matching stays PostgreSQL's
 * stemming and the engines agree), its site, votes, the weeks it is featured and the public row
 * a search shows. Searches read the alias; the feed writes the physical index the alias points
 * to, and a reindex builds another one and moves the alias (opensearch-feed.ts).
 */
export interface ListingDocument {
  id: number;
  site_id: number;
  votes: number;
  name: string[];
  lead: string[];
  all: string[];
  /** Mondays (YYYY-MM-DD) of the weeks the listing has a featured placement. */
  featured_weeks: string[];
  row: PublicListingRow;
}

export interface OpenSearchSettings {
  url: string;
  /** The alias searches read; physical indices are named `${alias}-<time>`. */
  alias: string;
}

export function openSearchClient(settings: Pick<OpenSearchSettings, 'url'>): Client {
  return new Client({ node: settings.url, requestTimeout: 30_000 });
}

const MAPPINGS = {
  dynamic: 'strict',
  properties: {
    id: { type: 'integer' },
    site_id: { type: 'integer' },
    votes: { type: 'integer' },
    name: { type: 'keyword' },
    lead: { type: 'keyword' },
    all: { type: 'keyword' },
    featured_weeks: { type: 'keyword' },
    // Shown, never searched.
    row: { type: 'object', enabled: false },
  },
} as const;

/** Creates an empty physical index for `alias`, named after the time. */
export async function createListingIndex(client: Client, alias: string, now = new Date()): Promise<string> {
  const name = `${alias}-${now
    .toISOString()
    .replace(/[^0-9]/g, '')
    .slice(0, 17)}`;
  await client.indices.create({
    index: name,
    body: {
      settings: {
        number_of_shards: 1,
        number_of_replicas: 0,
        refresh_interval: '1s',
        // Stored most voted first: a search sorted so stops after the hits it needs (as the
        // reference walks its vote index) instead of visiting every match.
        sort: { field: ['votes', 'id'], order: ['desc', 'asc'] },
      },
      mappings: MAPPINGS,
    },
  });
  return name;
}

/** The physical index the alias points to, or null when there is no alias yet. */
export async function aliasTarget(client: Client, alias: string): Promise<string | null> {
  const found = await client.indices.getAlias({ name: alias }, { ignore: [404] });
  if (found.statusCode === 404) return null;
  return Object.keys(found.body as Record<string, unknown>)[0] ?? null;
}

/** Points the alias at `index` in one atomic step and drops the index it pointed to before. */
export async function moveAlias(client: Client, alias: string, index: string): Promise<void> {
  const before = await aliasTarget(client, alias);
  if (before === index) return;
  const actions: object[] = [{ add: { index, alias } }];
  if (before) actions.unshift({ remove: { index: before, alias } });
  await client.indices.updateAliases({ body: { actions } });
  if (before) await client.indices.delete({ index: before }, { ignore: [404] });
}

/** The documents of the listings `ids` as PostgreSQL holds them now; a listing that is not live has none. */
export async function listingDocuments(db: Db, ids: number[]): Promise<Map<number, ListingDocument>> {
  const rows = await documentRows(db).whereRaw('listings.id = ANY(?)', [ids]).where('listings.status', 'live');
  return new Map(rows.map((r) => [r.id, toDocument(r)]));
}

/** Live listings with ids above `after`, `limit` of them in id order (a reindex's batches). */
export async function liveDocuments(db: Db, after: number, limit: number): Promise<ListingDocument[]> {
  const rows = await documentRows(db).where('listings.status', 'live').where('listings.id', '>', after).orderBy('listings.id').limit(limit);
  return rows.map(toDocument);
}

/** Selected by listingLexemes already. */
const LEXEME_COLUMNS = new Set<string>(['id', 'site_id', 'votes', 'status']);

type DocumentRow = ListingLexemesRow & PublicListingRow & { featured_weeks: string[] };

function documentRows(db: Db) {
  return listingLexemes(db)
    .select(PUBLIC_COLUMNS.filter((c) => !LEXEME_COLUMNS.has(c)).map((c) => `listings.${c}`))
    .select({
      featured_weeks: db.raw(
        `array(SELECT to_char(f.week_start, 'YYYY-MM-DD') FROM featured_placements f WHERE f.listing_id = listings.id ORDER BY f.week_start)`,
      ),
    }) as unknown as Promise<DocumentRow[]> & ReturnType<typeof listingLexemes>;
}

function toDocument(r: DocumentRow): ListingDocument {
  const row = Object.fromEntries(PUBLIC_COLUMNS.map((c) => [c, r[c]])) as PublicListingRow;
  return {
    id: r.id,
    site_id: r.site_id,
    votes: r.votes,
    name: r.name_lexemes,
    lead: r.lead_lexemes,
    all: r.all_lexemes,
    featured_weeks: r.featured_weeks,
    row,
  };
}

/**
 * Writes documents and deletes the listings without one, with `version` as the external version:
 * OpenSearch keeps a write only when its version is above the document's, so an earlier round
 * replayed late never replaces a later one. Conflicts are those skipped writes; other failures throw.
 */
export async function writeDocuments(
  client: Client,
  index: string,
  ids: number[],
  documents: Map<number, ListingDocument>,
  version: number,
): Promise<void> {
  if (ids.length === 0) return;
  const body: object[] = [];
  for (const id of ids) {
    const doc = documents.get(id);
    const meta = { _index: index, _id: String(id), version, version_type: 'external' };
    if (doc) body.push({ index: meta }, doc);
    else body.push({ delete: meta });
  }
  const { body: result } = await client.bulk({ body });
  if (!result.errors) return;
  const failed = (result.items as Array<Record<string, { status: number; error?: { type: string; reason: string } }>>)
    .map((item) => Object.values(item)[0]!)
    .filter((r) => r.error && r.status !== 409 && !(r.status === 404 && r.error.type === 'not_found'));
  if (failed.length > 0) throw new Error(`OpenSearch refused ${failed.length} writes: ${failed[0]!.error!.reason}`);
}
