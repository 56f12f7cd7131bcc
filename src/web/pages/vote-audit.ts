import type { Context } from 'koa';
import type { z } from 'zod';
import type { ReasonCode } from '../../domain/votes/detectors/types.ts';
import { getVoteAuditOp } from '../../operations/vote-audit.ts';
import { VOTE_POLICY } from '../../operations/read-models/vote-policy.ts';
import { html, type SafeHtml } from '../html.ts';
import { invokeForPage } from '../invoke.ts';
import { weekText } from '../week-words.ts';
import { renderPage } from '../render.ts';
import type { WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';

/** What each detector's reason code means, in words (the audit and the policy page). */
const REASON_WORDS: Record<ReasonCode, string> = {
  network_cluster: 'many accounts created close together, voting from one network',
  co_voting_ring: 'a group of accounts that vote together for the same few launches far more often than chance',
  burst: 'votes arriving far faster than the people shown the Vote button explain',
};

const reasonWords = (reason: string) => REASON_WORDS[reason as ReasonCode] ?? reason;
const votes = (n: number) => `${n} ${n === 1 ? 'vote' : 'votes'}`;

/** `/ranking-policy`: what counts in the weekly ranking and how much, in plain words. */
export const votePolicyPages: PageRoutes = (router, services) => {
  router.get('/ranking-policy', async function rankingPolicy(ctx) {
    await renderPage(ctx, services, { title: 'How votes count', main: policyBody() });
  });
};

function policyBody(): SafeHtml {
  const p = VOTE_POLICY;
  return html`<p class="lead">The weekly ranking is the votes of people. These are all the rules, so that anyone can check a result.</p>
<h2>What counts</h2>
<ul>
<li>Every signed-in account with a confirmed email address has one vote per launch, and never on its own listing.</li>
<li>A vote counts 1 for the launch’s week when it is cast during that week (Monday 00:00 to Sunday 24:00 UTC).</li>
<li>A vote that a ring detector flags is <strong>discounted</strong>: it is kept and shown, but counts 0.</li>
<li>A vote the site team removes for fraud counts 0 and is shown with the reason.</li>
<li>The same votes always give the same score. Ties go to the launch listed first.</li>
<li>Results are final once the week closes (Monday 00:00 UTC); the detectors look at the week once more just before.</li>
</ul>
<h2 id="detectors">The ring detectors</h2>
<p>They look at the week’s votes every hour while the week runs, and once more before it closes.</p>
<dl class="policy">
<dt>${REASON_WORDS.network_cluster} <span class="muted">(network_cluster)</span></dt>
<dd>More than ${p.networkAllowance} accounts, created within ${p.createdTogetherHours} hours of each other, voting for one launch from one network. Up to ${p.networkAllowance} accounts from one network (an office, a household) always count, and so do colleagues whose accounts are older.</dd>
<dt>${REASON_WORDS.co_voting_ring} <span class="muted">(co_voting_ring)</span></dt>
<dd>At least ${p.ringMinAccounts} accounts voting for the same three launches (${p.pairRingMinAccounts} for the same two), at least ${p.ringMinLift} times more often than people voting independently would, and with a chance below one in a million.</dd>
<dt>${REASON_WORDS.burst} <span class="muted">(burst)</span></dt>
<dd>In one hour, more than ${p.burstMinVotes} votes for a launch and more votes than the times its Vote button was shown in that hour and the hour before; then the votes that came from one referring site (at least ${p.burstMinGroup}) are discounted.</dd>
</dl>
<p>The site team reviews every flag: it may let a flagged vote count again, or remove it for good.</p>
<h2>What we keep with a vote</h2>
<p>Only what the detectors need: how old the account was and how it was confirmed, a keyed fingerprint of the network you voted from (never your address: the key changes every week and is deleted afterwards), your browser family, the site that sent you, and the time. After ${p.signalsKeptDays} days all of that is reduced to counts per launch.</p>
<h2>Check a launch</h2>
<p>Every launch page shows how its votes were counted: cast, counted, discounted and removed, with the reasons.</p>
<aside class="muted"><h2>For developers</h2><p>The leaderboard’s <code>formula</code> says the same; each launch’s numbers are <code>get_vote_audit</code> (<code>GET /api/v1/listings/{slug}/vote-audit</code>).</p></aside>`;
}

/** The vote audit of a listing's launch week, for its page (section `#vote-audit`). */
export async function voteAuditSection(ctx: Context, services: WebServices, slug: string): Promise<SafeHtml> {
  const audit: z.output<typeof getVoteAuditOp.output> = await invokeForPage(ctx, services, getVoteAuditOp, { slug });
  const head = html`<h2 id="vote-audit-title">How the votes of this launch were counted</h2>`;
  const policy = html`<p>Every launch is counted by the same rules: <a href="/ranking-policy">read how votes count</a>.</p>`;
  if (!audit.week) {
    return html`<section class="vote-audit" id="vote-audit" aria-labelledby="vote-audit-title">${head}<p>This listing has no launch week yet.</p>${policy}</section>`;
  }
  const state = audit.final ? 'The results of that week are final.' : 'The week is still open.';
  return html`<section class="vote-audit" id="vote-audit" aria-labelledby="vote-audit-title">${head}
<p>In its launch week, ${audit.week_start ? weekText(audit.week_start) : audit.week}, <span data-audit-cast>${votes(audit.votes_cast)}</span> ${audit.votes_cast === 1 ? 'was' : 'were'} cast: <span data-audit-counted>${audit.votes_counted}</span> count, <span data-audit-discounted>${audit.votes_discounted}</span> ${audit.votes_discounted === 1 ? 'was' : 'were'} discounted (kept, counting 0) and <span data-audit-voided>${audit.votes_voided}</span> removed by the site team. ${state}</p>
${
  audit.discounted_by_reason.length > 0 &&
  html`<p>Discounted, because they looked like:</p>
<ul>${audit.discounted_by_reason.map((r) => html`<li data-reason="${r.reason}">${votes(r.count)}: ${reasonWords(r.reason)}</li>`)}</ul>`
}
${
  audit.voided_by_reason.length > 0 &&
  html`<p>Removed by the site team:</p>
<ul>${audit.voided_by_reason.map((r) => html`<li>${votes(r.count)}: ${reasonWords(r.reason)}</li>`)}</ul>`
}
${commentVotesLine(audit.comment_votes)}
${policy}
<aside class="for-developers muted" aria-labelledby="vote-audit-dev"><h3 id="vote-audit-dev">For developers</h3><p>These numbers are <code>votes_cast</code>, <code>votes_counted</code>, <code>votes_discounted</code> and <code>votes_voided</code> of <code>get_vote_audit</code> (<code>GET /api/v1/listings/${slug}/vote-audit</code>); the reasons are codes such as <code>network_cluster</code>.</p></aside></section>`;
}

/** The launch week's votes on the listing's comments, when there were any: the same detectors judge them. */
function commentVotesLine(c: z.output<typeof getVoteAuditOp.output>['comment_votes']): SafeHtml | '' {
  if (c.cast === 0) return '';
  const why = c.discounted_by_reason.map((r) => `${votes(r.count)}: ${reasonWords(r.reason)}`).join('; ');
  return html`<p data-audit-comments>Votes on its comments that week: <span data-audit-comment-cast>${votes(c.cast)}</span> cast, <span data-audit-comment-counted>${c.counted}</span> count and <span data-audit-comment-discounted>${c.discounted}</span> ${c.discounted === 1 ? 'was' : 'were'} discounted by the same rules${why ? ` (${why})` : ''}.</p>`;
}
