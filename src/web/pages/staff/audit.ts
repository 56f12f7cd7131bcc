import type { Context } from 'koa';
import type { z } from 'zod';
import { staffExportAuditOp, staffListAuditOp } from '../../../operations/staff-audit.ts';
import { errorSummary, time } from '../../components.ts';
import { pager } from '../../content.ts';
import { html, type SafeHtml } from '../../html.ts';
import { invokeForPage } from '../../invoke.ts';
import { refusal } from '../../owner-forms.ts';
import { renderPage } from '../../render.ts';
import type { PageRoutes } from '../page-routes.ts';
import { pageNumber } from '../updates.ts';
import { requireStaff } from './access.ts';

const PATH = '/staff/audit';
const PER_PAGE = 50;
const FILTERS = {
  user: 'Who (email or user number)',
  operation: 'Action',
  target_kind: 'On what kind (order, user…)',
  target_id: 'On which (e.g. an order number)',
  from: 'On or after',
  to: 'On or before',
} as const;
type Filters = Partial<Record<keyof typeof FILTERS, string>>;

/** Actions in words; an action not named here shows its name. */
const ACTIONS: Record<string, string> = {
  staff_search_orders: 'Searched orders',
  staff_get_order: 'Opened an order',
  staff_refund_order_line: 'Refunded',
  staff_list_stuck_flows: 'Listed stuck work',
  staff_retry_flow: 'Retried stuck work',
  staff_replay_order: 'Replayed an order',
  staff_list_audit: 'Read the audit log',
  staff_export_audit: 'Exported the audit log',
  staff_list_claims: 'Listed claims',
  staff_get_claim: 'Opened a claim',
  staff_recheck_claim: 'Checked a claim now',
  staff_decide_claim: 'Decided a claim',
  staff_list_webhook_health: 'Read the failing webhooks',
  staff_get_webhook_endpoint: 'Opened a webhook address',
  staff_list_roles: 'Read the staff list',
  staff_grant_role: 'Gave a role',
  staff_revoke_role: 'Took back a role',
  staff_list_products: 'Read the products',
  staff_set_product_price: 'Changed a price',
  staff_set_product_active: 'Put a product on or off sale',
  staff_list_promo_codes: 'Read the promo codes',
  staff_create_promo_code: 'Created a promo code',
  staff_disable_promo_code: 'Disabled a promo code',
  staff_get_catalogue_settings: 'Read the paid slots and seller details',
  staff_set_catalogue_settings: 'Changed the paid slots or seller details',
  staff_list_listing_edits: 'Read listing edits',
  staff_revert_listing_edit: 'Reverted a listing edit',
  staff_unlist_listing: 'Unlisted a listing',
  staff_restore_listing: 'Restored a listing',
  staff_decide_vote_flag: 'Decided a vote flag',
  staff_reset_second_factor: 'Reset a second factor',
  'staff:grant': 'Gave a role',
  'staff:revoke': 'Took back a role',
};

/** The audit log for admins: filters, one page of rows, and the whole match as CSV or JSON. */
export const staffAuditPages: PageRoutes = (router, services) => {
  router.get(PATH, requireStaff(services, ['admin']), async function auditLog(ctx) {
    const filters = filtersOf(ctx);
    const page = pageNumber(ctx.query.page);
    let body: SafeHtml;
    let status = 200;
    try {
      const found = await invokeForPage(ctx, services, staffListAuditOp, { ...filters, page, per_page: PER_PAGE });
      body = html`${exportLinks(filters)}${auditTable(found.items)}${pager(PATH, page, PER_PAGE, found.total, filters)}`;
    } catch (err) {
      const refused = refusal(err);
      status = refused.status;
      body = errorSummary(refused.errors);
    }
    await renderPage(ctx, services, {
      title: 'Audit log',
      status,
      main: html`<p><a href="/staff">Site team</a></p>${filterForm(filters)}${body}`,
    });
  });

  router.get(`${PATH}/export`, requireStaff(services, ['admin']), async function exportAudit(ctx) {
    const format = ctx.query.format === 'json' ? 'json' : 'csv';
    const file = await invokeForPage(ctx, services, staffExportAuditOp, { ...filtersOf(ctx), format });
    ctx.type = file.content_type;
    ctx.set('Content-Disposition', `attachment; filename="${file.filename}"`);
    ctx.body = file.content;
  });
};

function filtersOf(ctx: Context): Filters {
  const f: Filters = {};
  for (const name of Object.keys(FILTERS) as (keyof typeof FILTERS)[]) {
    const v = ctx.query[name];
    if (typeof v === 'string' && v.trim()) f[name] = v.trim().slice(0, 80);
  }
  return f;
}

function filterForm(f: Filters): SafeHtml {
  return html`<form method="get" action="${PATH}" role="search" aria-label="Filter the audit log">
${(Object.entries(FILTERS) as [keyof typeof FILTERS, string][]).map(
  ([name, label]) =>
    html`<div class="field"><label for="f-${name}">${label}</label><input id="f-${name}" name="${name}" type="${name === 'from' || name === 'to' ? 'date' : 'text'}" value="${f[name] ?? ''}"></div>`,
)}
<button type="submit">Filter</button> <a href="${PATH}">Show all</a>
</form>`;
}

function exportLinks(f: Filters): SafeHtml {
  const query = (format: string) => new URLSearchParams({ ...f, format }).toString();
  return html`<p>Download these rows: <a href="${PATH}/export?${query('csv')}" download>as CSV</a> · <a href="${PATH}/export?${query('json')}" download>as JSON</a></p>`;
}

type Row = z.output<typeof staffListAuditOp.output>['items'][number];

function auditTable(items: Row[]): SafeHtml {
  if (!items.length) return html`<p>No actions match.</p>`;
  return html`<table class="stack"><thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">On</th><th scope="col">Details</th></tr></thead>
<tbody>${items.map(
    (r) =>
      html`<tr data-audit="${r.operation}" data-target="${r.target_id ?? ''}"><td data-label="When">${time(r.at)}</td><td data-label="Who">${r.user_email ?? 'The command line'}${r.role ? ` (${r.role})` : ''}</td><td data-label="Action">${ACTIONS[r.operation] ?? r.operation}</td><td data-label="On">${r.target_kind ? `${r.target_kind} ${r.target_id ?? ''}` : '—'}</td><td data-label="Details">${details(r)}</td></tr>`,
  )}</tbody></table>`;
}

/** The reason given, when there is one, and the input as recorded (folded: it can be long). */
function details(r: Row): SafeHtml {
  const reason = typeof r.input.reason === 'string' ? r.input.reason : null;
  return html`${reason ? html`<span data-reason>Reason: ${reason}</span>` : ''}<details><summary>Input and result</summary><pre class="audit-json">${JSON.stringify({ input: r.input, before: r.before, after: r.after }, null, 1)}</pre></details>`;
}
