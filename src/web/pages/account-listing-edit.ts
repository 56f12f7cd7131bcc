import type { Context } from 'koa';
import { displayName } from '../../operations/read-models/display-names.ts';
import type { z } from 'zod';
import { AppError } from '../../errors/errors.ts';
import type { OwnerListingView } from '../../operations/listing-edit-schemas.ts';
import { listListingVersionsOp, updateMyListingOp } from '../../operations/listing-edits.ts';
import { getMyListingOp } from '../../operations/listings.ts';
import { listSitesOp } from '../../operations/public.ts';
import { SOCIAL_PLATFORMS } from '../../operations/schemas.ts';
import { errorSummary, field, postForm, time } from '../components.ts';
import { pager } from '../content.ts';
import { csrfToken } from '../csrf.ts';
import { listingImagesSection } from './listing-media.ts';
import { formBody, type FieldMessages } from '../forms.ts';
import { html, type SafeHtml } from '../html.ts';
import { invokeForPage } from '../invoke.ts';
import {
  changesList,
  COMPANY_FIELDS,
  evidenceNote,
  FACT_NAMES,
  formValueOf,
  inputValueOf,
  listingFieldControl,
  messagesFor,
  SITE_TEXT_FIELDS,
  type ListingField,
} from '../listing-fields.ts';
import { ownerPaths } from '../next-steps.ts';
import { textArea } from '../owner-forms.ts';
import { renderPage } from '../render.ts';
import { requireUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import { listingIdOf } from './account-listing-home.ts';
import type { PageRoutes } from './page-routes.ts';

type View = z.output<typeof OwnerListingView>;

/** Versions per page of the history. */
const VERSIONS_PER_PAGE = 10;
/** Empty FAQ rows below the listing's FAQs, for new questions. */
const NEW_FAQ_ROWS = 2;
const MAX_FAQS = 30;
const APPLIED_WORDS: Record<string, string> = {
  updated: 'updated',
  unchanged: 'already the same',
  no_listing: 'no listing of this company there',
  not_owned: 'its listing there is another account’s, left unchanged',
};

interface FormState {
  status: number;
  errors?: FieldMessages;
  /** The values sent, shown again after a refusal. */
  values?: Record<string, string>;
  applyTo?: string[];
}

/**
 * The edit page of one listing: every field update_my_listing takes, each with where the crawl
 * found it; the site boxes of apply_to; "Save" sends only what changed (plus the site texts when
 * a site is ticked) and shows the version it made; the version history with a word diff each.
 */
export const accountListingEditPages: PageRoutes = (router, services) => {
  router.get('/account/listings/{listing_id}/edit', requireUser(services), async function showListingEditor(ctx) {
    await editPage(ctx, services, { status: 200 });
  });

  router.post('/account/listings/{listing_id}/edit', requireUser(services), async function saveListingEdit(ctx) {
    const listingId = listingIdOf(ctx);
    const body = formBody(ctx);
    const values = formValues(body);
    const sites = await invokeForPage(ctx, services, listSitesOp, {});
    const applyTo = [body.apply_to ?? []].flat().filter((k): k is string => typeof k === 'string' && sites.items.some((s) => s.key === k));
    const [current, newest] = await Promise.all([
      invokeForPage(ctx, services, getMyListingOp, { listing_id: listingId }),
      newestVersionId(ctx, services, listingId),
    ]);
    const { input, faqRows } = editInput(current, values, applyTo.length > 0);
    if (!input.fields && !input.socials && !input.faqs) {
      ctx.status = 303;
      ctx.redirect(`${ownerPaths.edit(listingId)}?saved=none`);
      return;
    }
    let applied: { site: string; status: string }[];
    try {
      ({ applied } = await invokeForPage(ctx, services, updateMyListingOp, {
        listing_id: listingId,
        ...input,
        ...(applyTo.length ? { apply_to: applyTo } : {}),
      }));
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500 || err.status === 404) throw err;
      const errors = err.errors?.length ? messagesFor(err.errors, (path) => formFieldOf(path, faqRows)) : { form: err.message };
      return editPage(ctx, services, { status: err.status, errors, values, applyTo });
    }
    const version = await newestVersionId(ctx, services, listingId);
    const query = new URLSearchParams({ saved: version !== null && version !== newest ? String(version) : 'none' });
    if (applied.length) query.set('applied', applied.map((a) => `${a.site}:${a.status}`).join(','));
    ctx.status = 303;
    ctx.redirect(`${ownerPaths.edit(listingId)}?${query}`);
  });
};

async function newestVersionId(ctx: Context, services: WebServices, listingId: number): Promise<number | null> {
  const { items } = await invokeForPage(ctx, services, listListingVersionsOp, { listing_id: listingId, page: 1, per_page: 1 });
  return items[0]?.id ?? null;
}

/** The text controls the form sent, by name (FAQ rows as faq-N-question / faq-N-answer); absent ones are left out. */
function formValues(body: Record<string, unknown>): Record<string, string> {
  const names = [
    ...SITE_TEXT_FIELDS.map((f) => f.name),
    ...COMPANY_FIELDS.map((f) => f.name),
    ...SOCIAL_PLATFORMS.map((p) => `social-${p}`),
    ...Array.from({ length: MAX_FAQS + NEW_FAQ_ROWS }, (_, i) => [`faq-${i + 1}-question`, `faq-${i + 1}-answer`]).flat(),
  ];
  return Object.fromEntries(names.filter((n) => typeof body[n] === 'string').map((n) => [n, body[n] as string]));
}

/** The stored value of a field, as the form shows it. */
function currentValue(v: View, f: ListingField): string {
  const source = FACT_NAMES.has(f.name) ? (v.facts as Record<string, unknown>) : (v as unknown as Record<string, unknown>);
  return formValueOf(source[f.name]);
}

/**
 * update_my_listing's input from the form: the fields whose value differs from the stored one
 * (the site texts all when `withSiteTexts`, so the ticked sites get them), socials and FAQs when
 * they changed. `faqRows[i]` is the form row of the i-th FAQ sent (for its error).
 */
function editInput(v: View, values: Record<string, string>, withSiteTexts: boolean) {
  const fields: Record<string, unknown> = {};
  for (const f of [...SITE_TEXT_FIELDS, ...COMPANY_FIELDS]) {
    const stored = currentValue(v, f);
    const sent = values[f.name];
    const changed = sent !== undefined && sent.trim() !== stored.trim();
    const siteText = withSiteTexts && SITE_TEXT_FIELDS.includes(f);
    if (changed || siteText) fields[f.name] = inputValueOf(f, sent ?? stored);
  }
  // Socials and FAQs are replaced as a whole, so only when the form sent them.
  const sentSocials = SOCIAL_PLATFORMS.some((p) => values[`social-${p}`] !== undefined);
  const socials = Object.fromEntries(
    SOCIAL_PLATFORMS.map((p) => [p, (values[`social-${p}`] ?? v.socials[p] ?? '').trim()] as const).filter(([, url]) => url !== ''),
  );
  const socialsChanged = sentSocials && JSON.stringify(Object.entries(socials).sort()) !== JSON.stringify(Object.entries(v.socials).sort());
  const sentFaqs = Object.keys(values).some((name) => name.startsWith('faq-'));
  const faqRows: number[] = [];
  const faqs: { question: string; answer: string }[] = [];
  for (let row = 1; row <= MAX_FAQS + NEW_FAQ_ROWS; row++) {
    const question = (values[`faq-${row}-question`] ?? '').trim();
    const answer = (values[`faq-${row}-answer`] ?? '').trim();
    if (!question && !answer) continue;
    faqRows.push(row);
    faqs.push({ question, answer });
  }
  const faqsChanged = sentFaqs && JSON.stringify(faqs) !== JSON.stringify(v.faqs.map((f) => ({ question: f.question, answer: f.answer })));
  return {
    input: {
      ...(Object.keys(fields).length ? { fields } : {}),
      ...(socialsChanged ? { socials } : {}),
      ...(faqsChanged ? { faqs } : {}),
    },
    faqRows,
  };
}

/** The form field of an error path of update_my_listing. */
function formFieldOf(path: string[], faqRows: number[]): string {
  const [part, key, sub] = path;
  if (part === 'fields' && key) return key;
  if (part === 'socials' && key) return `social-${key}`;
  if (part === 'faqs' && key !== undefined && /^\d+$/.test(key))
    return `faq-${faqRows[Number(key)] ?? 1}-${sub === 'answer' ? 'answer' : 'question'}`;
  if (part === 'apply_to') return 'apply_to';
  return 'form';
}

async function editPage(ctx: Context, services: WebServices, form: FormState): Promise<void> {
  const listingId = listingIdOf(ctx);
  // Another owner's listing is "not found", the same as through the API.
  const v = await invokeForPage(ctx, services, getMyListingOp, { listing_id: listingId });
  const pageNo = pageNumber(ctx);
  const [versions, sites, token] = await Promise.all([
    invokeForPage(ctx, services, listListingVersionsOp, { listing_id: listingId, page: pageNo, per_page: VERSIONS_PER_PAGE }),
    invokeForPage(ctx, services, listSitesOp, {}),
    csrfToken(ctx, services),
  ]);
  const otherSites = sites.items.filter((s) => s.key !== v.site);
  const value = (name: string, stored: string) => form.values?.[name] ?? stored;
  const control = (f: ListingField) =>
    listingFieldControl(f, value(f.name, currentValue(v, f)), { error: form.errors?.[f.name], evidence: v.evidence });
  const faqs = [...v.faqs, ...Array.from({ length: NEW_FAQ_ROWS }, () => ({ question: '', answer: '' }))].slice(0, MAX_FAQS + NEW_FAQ_ROWS);
  await renderPage(ctx, services, {
    title: `Edit ${v.name}`,
    status: form.status,
    main: html`<p><a href="${ownerPaths.home(v.id)}">Back to ${v.name}</a></p>
${form.status === 200 && (await savedNotice(ctx, services, listingId, sites.items))}
${errorSummary(form.errors)}
${postForm(
  ownerPaths.edit(v.id),
  token,
  html`<p class="hint">Changes publish at once and are kept in the version history below. Where a value came from your website, the page and the excerpt it was read from show under the field.</p>
<fieldset><legend><h2>This site’s texts</h2></legend>
${SITE_TEXT_FIELDS.map(control)}
</fieldset>
${
  otherSites.length > 0 &&
  html`<fieldset aria-describedby="apply-hint"${form.errors?.apply_to ? html` id="f-apply_to"` : ''}><legend>Also write these texts to my listings of this company on</legend>
<p class="hint" id="apply-hint">The headline, summary and search engine texts above are written to your listings of the same company (same website domain) on the sites you tick.</p>
${form.errors?.apply_to && html`<p class="error">${form.errors.apply_to}</p>`}
${otherSites.map((s) => html`<label class="check"><input type="checkbox" name="apply_to" value="${s.key}"${form.applyTo?.includes(s.key) ? html` checked` : ''}> ${s.name}</label>`)}
</fieldset>`
}
<fieldset><legend><h2>Company facts</h2></legend>
${COMPANY_FIELDS.map(control)}
</fieldset>
<fieldset><legend><h2>Social links</h2></legend>
<p class="hint">The https address of each profile; leave a box empty to remove that link.</p>
${SOCIAL_PLATFORMS.map((p) =>
  listingFieldControl(socialField(p), value(`social-${p}`, v.socials[p] ?? ''), {
    error: form.errors?.[`social-${p}`],
    evidence: v.evidence,
  }),
)}
</fieldset>
<fieldset><legend><h2>Frequently asked questions</h2></legend>
<p class="hint">Empty both boxes of a question to remove it. ${v.evidence.faqs ? evidenceNote(v.evidence.faqs) : ''}</p>
${faqs.map(
  (f, i) => html`<div class="faq">
${field({ name: `faq-${i + 1}-question`, label: `Question ${i + 1}`, value: value(`faq-${i + 1}-question`, f.question), error: form.errors?.[`faq-${i + 1}-question`], maxlength: 300 })}
${textArea({ name: `faq-${i + 1}-answer`, label: `Answer ${i + 1}`, value: value(`faq-${i + 1}-answer`, f.answer), error: form.errors?.[`faq-${i + 1}-answer`], rows: 3, maxlength: 2000 })}
</div>`,
)}
</fieldset>
<button type="submit">Save</button>`,
)}
${listingImagesSection(v, token)}
<section aria-labelledby="history-title">
<h2 id="history-title">Version history</h2>
${
  versions.items.length === 0
    ? html`<p>No changes yet.</p>`
    : html`<ol class="versions feed">${versions.items.map(
        (ver) =>
          html`<li data-version="${ver.id}"><p>${time(ver.created_at)} · ${versionWho(ver, v.id)}</p>${changesList(ver.changes)}</li>`,
      )}</ol>`
}
${pager(ownerPaths.edit(v.id), pageNo, VERSIONS_PER_PAGE, versions.total)}
</section>
<aside aria-labelledby="for-developers"><h2 id="for-developers">For developers</h2>
<p>This form calls <a href="/docs#update_my_listing">update_my_listing</a> (with <code>apply_to</code> for the ticked sites); the history is <a href="/docs#list_listing_versions">list_listing_versions</a>.</p></aside>`,
  });
}

const OPERATION_WORDS: Record<string, string> = {
  update_my_listing: 'Edited',
  add_milestone: 'Milestone added',
  delete_milestone: 'Milestone deleted',
};

function versionWho(ver: { operation: string; via_listing_id: number | null }, listingId: number): string {
  const what = OPERATION_WORDS[ver.operation] ?? 'Changed';
  return ver.via_listing_id && ver.via_listing_id !== listingId ? `${what} from your listing on another site` : what;
}

/** A social link as a listing field (its evidence is `socials.<platform>`). */
const socialField = (platform: string): ListingField => ({
  name: `social-${platform}`,
  label: displayName('platform', platform),
  kind: 'line',
  max: 2048,
  evidence: `socials.${platform}`,
});

/** The page of the history asked for (`?page=`); anything odd is the first. */
function pageNumber(ctx: Context): number {
  const raw = ctx.query.page;
  return typeof raw === 'string' && /^[1-9]\d{0,4}$/.test(raw) ? Number(raw) : 1;
}

/** After "Save": what changed (the version it made) and what apply_to did per site. */
async function savedNotice(
  ctx: Context,
  services: WebServices,
  listingId: number,
  sites: { key: string; name: string }[],
): Promise<SafeHtml | false> {
  const saved = ctx.query.saved;
  if (typeof saved !== 'string') return false;
  const appliedRaw = typeof ctx.query.applied === 'string' ? ctx.query.applied.split(',') : [];
  const applied = appliedRaw.flatMap((entry) => {
    const [key, status] = entry.split(':');
    const site = sites.find((s) => s.key === key);
    return site && status && APPLIED_WORDS[status]
      ? [html`<li data-site="${site.key}" data-applied="${status}">${site.name}: ${APPLIED_WORDS[status]}</li>`]
      : [];
  });
  const appliedList = applied.length > 0 && html`<p>Also written to your listings on other sites:</p><ul>${applied}</ul>`;
  if (saved === 'none')
    return html`<div class="notice" role="status" data-saved="none"><p>Saved. Nothing changed on this listing.</p>${appliedList}</div>`;
  if (!/^[1-9]\d{0,9}$/.test(saved)) return false;
  const { items } = await invokeForPage(ctx, services, listListingVersionsOp, {
    listing_id: listingId,
    page: 1,
    per_page: VERSIONS_PER_PAGE,
  });
  const version = items.find((i) => i.id === Number(saved));
  if (!version) return false;
  return html`<div class="notice" role="status" data-saved="${version.id}"><p>Saved. What changed:</p>${changesList(version.changes)}${appliedList}</div>`;
}
