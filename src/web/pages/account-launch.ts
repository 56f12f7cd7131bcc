import type { Context } from 'koa';
import type { z } from 'zod';
import type { BadgeSnippet } from '../../domain/launches/badges.ts';
import { notFound } from '../../errors/errors.ts';
import { chooseFreeListingOp, getBadgesOp, recheckBadgeOp } from '../../operations/launches.ts';
import type { OwnerListingView } from '../../operations/listing-edit-schemas.ts';
import { getMyListingOp } from '../../operations/listings.ts';
import { freeWeekNow } from '../../operations/read-models/free-week.ts';
import { paths } from '../../lib/paths.ts';
import { errorSummary, postForm, time } from '../components.ts';
import { missingList } from '../content.ts';
import { csrfToken } from '../csrf.ts';
import type { FieldMessages } from '../forms.ts';
import { html, type SafeHtml } from '../html.ts';
import { invokeForPage, pageContext } from '../invoke.ts';
import { refusal } from '../owner-forms.ts';
import { renderPage } from '../render.ts';
import { requireUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import { badgeStatusText, listingNextStep, missingForPeople, ownerPaths, placeText } from '../next-steps.ts';
import { weekText } from '../week-words.ts';
import { COPY_SCRIPT } from './api-keys.ts';
import type { PageRoutes } from './page-routes.ts';

type OwnerView = z.output<typeof OwnerListingView>;

const NOTICES: Record<string, string> = {
  checked: 'We checked your site for the badge just now.',
  'free-chosen': 'You chose the free launch.',
};

const panelPath = ownerPaths.launchPanel;

/**
 * The launch panel of one listing (linked from its home, ownerPaths.home): status, week, place,
 * the free launch, the badge check and the snippets. Its forms post to the listing's path.
 */
export const accountLaunchPages: PageRoutes = (router, services) => {
  router.get('/account/listings/{listing_id}/launch', requireUser(services), async function showLaunchPanel(ctx) {
    await panelPage(ctx, services, 200);
  });

  router.post('/account/listings/{listing_id}/badge-check', requireUser(services), async function checkBadgeNow(ctx) {
    try {
      await invokeForPage(ctx, services, recheckBadgeOp, { listing_id: listingIdOf(ctx) });
    } catch (err) {
      const { status, errors } = refusal(err);
      return panelPage(ctx, services, status, errors);
    }
    ctx.status = 303;
    ctx.redirect(`${panelPath(listingIdOf(ctx))}?notice=checked`);
  });

  router.post('/account/listings/{listing_id}/free', requireUser(services), async function chooseFreeLaunch(ctx) {
    try {
      await invokeForPage(ctx, services, chooseFreeListingOp, { listing_id: listingIdOf(ctx) });
    } catch (err) {
      const { status, errors } = refusal(err);
      return panelPage(ctx, services, status, errors);
    }
    ctx.status = 303;
    ctx.redirect(`${panelPath(listingIdOf(ctx))}?notice=free-chosen`);
  });
};

/** The listing id of the path; anything but a positive 32-bit integer is a page that does not exist. */
function listingIdOf(ctx: Context): number {
  const raw = ctx.params.listing_id!;
  if (!/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2_147_483_647) throw notFound('The listing');
  return Number(raw);
}

async function panelPage(ctx: Context, services: WebServices, status: number, errors?: FieldMessages) {
  // Another owner's listing is "not found", the same as through the API.
  const listing_id = listingIdOf(ctx);
  const [view, { badges }] = await Promise.all([
    invokeForPage(ctx, services, getMyListingOp, { listing_id }),
    invokeForPage(ctx, services, getBadgesOp, { listing_id }),
  ]);
  const token = await csrfToken(ctx, services);
  const canChooseFree = view.plan === null && ['draft', 'awaiting_profile', 'awaiting_badge'].includes(view.status as string);
  const freeWeek = canChooseFree ? await freeWeekNow(await pageContext(ctx, services)) : null;
  const notice = status === 200 && typeof ctx.query.notice === 'string' ? NOTICES[ctx.query.notice] : undefined;
  await renderPage(ctx, services, {
    title: `Launch: ${view.name}`,
    status,
    notice,
    script: COPY_SCRIPT,
    main: html`<p><a href="${ownerPaths.home(view.id)}">Back to ${view.name}</a></p>
${errorSummary(errors)}
${launchStatus(view)}
${missingList(missingForPeople(view.id, view.badge.status, view.missing), 'What the free launch still needs')}
<p><a href="${ownerPaths.promote(view.id)}">Launch now or pick a week</a> <span class="hint">(a paid launch, or featured, category and billboard placements)</span></p>
${
  canChooseFree &&
  postForm(
    `/account/listings/${view.id}/free`,
    token,
    html`${freeWeekWords(freeWeek)}
<button type="submit">Launch for free</button>
<p class="hint">Free launches wait in the queue (see <a href="/launches">how full each week is</a>) and need our badge on your site and a complete founder profile.</p>`,
  )
}
${badgeSection(view, token)}
${snippetSection(badges)}`,
  });
}

/** The week a free launch would get, said before the button that asks for it. */
function freeWeekWords(monday: string | null): SafeHtml {
  if (!monday) return html`<p data-field="free-week">No coming week has a free slot left; a paid launch needs no slot in the queue.</p>`;
  return html`<p data-field="free-week" data-week-start="${monday}">A free launch chosen today gets <strong>${weekText(monday)}</strong>, the first week with a free slot left. The week is booked once our badge is on your site and your founder profile is complete, so it can be later if that takes a while.</p>`;
}

const PLANS = { free: 'Free launch', paid: 'Paid launch' } as const;

function launchStatus(v: OwnerView): SafeHtml {
  return html`<section aria-labelledby="launch-title">
<h2 id="launch-title">Launch</h2>
<dl class="launch facts" data-status="${v.status}">
<dt>Where it stands</dt><dd data-field="status" data-status="${v.status}">${listingNextStep(v).state}</dd>
<dt>Plan</dt><dd data-field="plan" data-plan="${v.plan ?? ''}">${v.plan ? PLANS[v.plan] : 'Not chosen yet'}</dd>
<dt>Launch week</dt><dd data-field="launch-week" data-week="${v.launch_week_start ?? ''}">${v.launch_week_start ? html`${weekText(v.launch_week_start)} (live from Monday 00:00 UTC)` : html`<span class="muted">None yet</span>`}</dd>
<dt>Place in that week</dt><dd data-field="queue-position" data-position="${v.queue_position ?? ''}">${v.queue_position ? placeText(v.queue_position) : html`<span class="muted">—</span>`}</dd>
</dl>
${(v.status as string) === 'live' && html`<p><a href="/listings/${v.slug}">See the public page</a></p>`}
<p><a href="${paths.listingStats(v.id)}">See its launch numbers</a>: views, clicks, votes and followers.</p>
</section>`;
}

function badgeSection(v: OwnerView, token: string): SafeHtml {
  const b = v.badge;
  return html`<section aria-labelledby="badge-title">
<h2 id="badge-title">Badge check</h2>
<p data-field="badge-status" data-badge="${b.status}"><strong>${badgeStatusText(b.status)}</strong> Last check: ${time(b.checked_at, 'never')}.</p>
${b.detail && html`<p data-field="badge-detail">${b.detail}</p>`}
${b.missing_since && html`<p>Missing since ${time(b.missing_since)}.</p>`}
${v.badge_note && html`<p class="error" data-field="badge-note">${v.badge_note}</p>`}
${postForm(`/account/listings/${v.id}/badge-check`, token, html`<button type="submit">Check now</button>`)}
</section>`;
}

function snippetSection(snippets: BadgeSnippet[]): SafeHtml {
  return html`<section aria-labelledby="snippets-title">
<h2 id="snippets-title">Badge snippets</h2>
<p>Paste one on your homepage, visible to visitors (not in a comment, a template, a script or a hidden element).</p>
${snippets.map(
  (s) => html`<h3>${s.name === 'light' ? 'Light' : 'Dark'} theme</h3>
<p><img src="${new URL(s.image_url).pathname}${new URL(s.image_url).search}" alt="" width="220" height="54"></p>
<div class="secret"><code id="snippet-${s.name}-html">${s.html}</code>
<button type="button" data-copy="snippet-${s.name}-html" hidden>Copy HTML<span class="visually-hidden"> (${s.name})</span></button></div>
<div class="secret"><code id="snippet-${s.name}-markdown">${s.markdown}</code>
<button type="button" data-copy="snippet-${s.name}-markdown" hidden>Copy Markdown<span class="visually-hidden"> (${s.name})</span></button></div>`,
)}
<span role="status" aria-live="polite" id="copy-status"></span>
</section>`;
}
