import type { Db } from '../db/knex.ts';
import { recentEdits, type RecentEdit } from '../domain/listings/listing-versions.ts';
import { readSiteByKey } from '../domain/sites/sites.ts';
import { badRequest } from '../errors/errors.ts';

export const EDITS_LIST_USAGE =
  'npm run admin -- edits:list [--site KEY] [--limit N]   (recent listing edits with their diff; N ≤ 1000, default 20)';

/** `edits:list`: the latest listing edits, newest first, each with a before/after diff for the site team. */
export async function editsList(db: Db, options: { site?: string; limit?: string }): Promise<string> {
  const limit = parseLimit(options.limit);
  if (options.site !== undefined && !(await readSiteByKey(db, options.site))) {
    throw badRequest('unknown_site', `There is no site with the key "${options.site}".`);
  }
  const edits = await recentEdits(db, { siteKey: options.site, limit });
  if (edits.length === 0) return 'No edits.';
  return edits.map(formatEdit).join('\n\n');
}

function parseLimit(value: string | undefined): number {
  if (value === undefined) return 20;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 1000)
    throw badRequest('invalid_limit', `--limit must be a whole number from 1 to 1000, not "${value}".`);
  return n;
}

function formatEdit(edit: RecentEdit): string {
  const when = edit.created_at
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
  const who = edit.editor_email ?? (edit.editor_id ? `user ${edit.editor_id}` : 'a deleted account');
  const lines = [
    `#${edit.id}  ${when}  [${edit.site_key}] listing ${edit.listing_id} "${edit.listing_name}" (${edit.listing_slug})`,
    `  ${edit.operation} by ${who}${edit.source_listing_id ? `, via apply_to from listing ${edit.source_listing_id}` : ''}`,
  ];
  for (const [field, { before, after }] of Object.entries(edit.changes)) {
    lines.push(`  ${field}:`, ...marked('-', before), ...marked('+', after));
  }
  return lines.join('\n');
}

/** A value as diff lines: text line by line, anything else as compact JSON, null as (empty). */
function marked(sign: '-' | '+', value: unknown): string[] {
  const text = value === null || value === undefined ? '(empty)' : typeof value === 'string' ? value : JSON.stringify(value);
  return text.split('\n').map((line) => `    ${sign} ${line}`);
}
