import type { Context } from 'koa';
import type { z } from 'zod';
import { CLAIM_STATUSES, staffListClaimsOp } from '../../../operations/staff-claims.ts';
import { time } from '../../components.ts';
import { pager } from '../../content.ts';
import { html, type SafeHtml } from '../../html.ts';
import { invokeForPage } from '../../invoke.ts';
import { renderPage } from '../../render.ts';
import type { PageRoutes } from '../page-routes.ts';
import { pageNumber } from '../updates.ts';
import { requireStaff } from './access.ts';

export const CLAIMS_PATH = '/staff/claims';
const PER_PAGE = 25;

/** A claim's status in words, for the site team. */
export const CLAIM_STATUS_WORDS: Record<(typeof CLAIM_STATUSES)[number], string> = {
  pending: 'Waiting for proof',
  verified: 'Verified: the claimant owns the listing',
  expired: 'Expired without proof',
  canceled: 'Canceled: another claim won',
  rejected: 'Rejected by the site team',
};

/** How a claim is proved, in words. */
export const METHOD_WORDS: Record<string, string> = {
  dns: 'DNS record',
  meta: 'Meta tag',
  file: 'File on the website',
  email: 'Emailed link',
};

/** A check's result in words (the claim page has the detail). */
export const RESULT_SHORT: Record<string, string> = { found: 'proof found', not_found: 'not found', error: 'could not check' };

type Filter = { status?: (typeof CLAIM_STATUSES)[number]; stuck?: boolean };

/** The claims of this site, newest first, with a status filter (a GET form, so the address can be shared). */
export const staffClaimListPages: PageRoutes = (router, services) => {
  router.get(CLAIMS_PATH, requireStaff(services, ['admin', 'support']), async function staffClaims(ctx) {
    const filter = filterOf(ctx);
    const page = pageNumber(ctx.query.page);
    const found = await invokeForPage(ctx, services, staffListClaimsOp, { ...filter, page, per_page: PER_PAGE });
    const query: Record<string, string> = {};
    if (filter.status) query.status = filter.status;
    if (filter.stuck) query.status = 'stuck';
    await renderPage(ctx, services, {
      title: 'Ownership claims',
      main: html`<p><a href="/staff">Site team</a></p>${filterForm(filter)}${claimsTable(found.items, found.total)}${pager(CLAIMS_PATH, page, PER_PAGE, found.total, query)}`,
    });
  });
};

/** Unknown filter values show every claim rather than an error: the form only offers known ones. */
function filterOf(ctx: Context): Filter {
  const show = typeof ctx.query.status === 'string' ? ctx.query.status : '';
  if (show === 'stuck') return { stuck: true };
  const status = (CLAIM_STATUSES as readonly string[]).includes(show) ? (show as Filter['status']) : undefined;
  return status ? { status } : {};
}

function filterForm(f: Filter): SafeHtml {
  const current = f.stuck ? 'stuck' : (f.status ?? '');
  const option = (value: string, words: string) =>
    html`<option value="${value}"${current === value ? html` selected` : ''}>${words}</option>`;
  return html`<form method="get" action="${CLAIMS_PATH}" class="staff-search" aria-label="Filter claims">
<div class="field"><label for="f-status">Status</label><select id="f-status" name="status">${option('', 'Every claim')}${Object.entries(CLAIM_STATUS_WORDS).map(([v, w]) => option(v, w))}${option('stuck', 'Stuck: pending, but not checked lately or past its expiry')}</select></div>
<button type="submit">Show claims</button>
</form>`;
}

type Item = z.output<typeof staffListClaimsOp.output>['items'][number];

/** An age in the largest whole unit. */
export function ageWords(seconds: number): string {
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}

function claimsTable(items: Item[], total: number): SafeHtml {
  if (!items.length) return html`<p role="status" data-results="0">No claims match.</p>`;
  return html`<h2 role="status" data-results="${total}">${total === 1 ? '1 claim' : `${total} claims`} (newest first)</h2>
<table class="stack"><thead><tr><th scope="col">Claim</th><th scope="col">Listing</th><th scope="col">Claimant</th><th scope="col">Proof by</th><th scope="col">Status</th><th scope="col">Age</th><th scope="col">Last check</th></tr></thead>
<tbody>${items.map(
    (c) =>
      html`<tr data-claim="${c.id}"><td data-label="Claim"><a href="${CLAIMS_PATH}/${c.id}">Claim ${c.id}</a></td><td data-label="Listing">${c.listing_name}</td><td data-label="Claimant">${c.claimant_email}</td><td data-label="Proof by">${METHOD_WORDS[c.method] ?? c.method}</td><td data-label="Status">${CLAIM_STATUS_WORDS[c.status]}</td><td data-label="Age">${ageWords(c.age_seconds)}</td><td data-label="Last check">${c.last_check ? html`${RESULT_SHORT[c.last_check.result]}, ${time(c.last_check.checked_at)}` : html`<span class="muted">never</span>`}</td></tr>`,
  )}</tbody></table>`;
}
