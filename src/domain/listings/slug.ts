import type { Db } from '../../db/knex.ts';

/** URL-safe slug of a name: ascii letters and digits joined by single dashes. */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return slug || 'listing';
}

/**
 * A slug not yet taken: `acme`, then `acme-2`, `acme-3`... Call inside the inserting
 * transaction: listings of one slug base take turns under a transaction-scoped lock, so two
 * companies of one name submitted at once get `acme` and `acme-2` (not a unique violation).
 */
export async function uniqueSlug(db: Db, name: string): Promise<string> {
  const base = slugify(name);
  await db.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`slug:${base}`]);
  const taken = new Set<string>(await db('listings').where('slug', base).orWhere('slug', 'like', `${base}-%`).pluck('slug'));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}
