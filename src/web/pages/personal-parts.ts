import { pagePerson, type PagePerson } from '../../operations/read-models/page-person.ts';
import type { VoteTarget } from '../../operations/read-models/votes.ts';
import type { CommentView } from '../../operations/read-models/comments.ts';
import { commentControls, newCommentForm, type Reader } from '../comments-view.ts';
import { hasFlash } from '../flash.ts';
import { SafeHtml } from '../html.ts';
import { pageContext } from '../invoke.ts';
import { signedInLinks } from '../layout.ts';
import type { PersonalParts } from '../page-cache.ts';
import { slotValue, type FilledPart, type Slot } from '../personal-slots.ts';
import { currentUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import { claimPrompt } from './claim-link.ts';
import { CONFIRM_TO_COMMENT } from './comments.ts';
import { followControl } from './follow.ts';
import { keptVoteControl, voteViewer } from './votes.ts';

type VoteSlot = Omit<VoteTarget, 'owner_id'> & { returnTo: string };
type FollowSlot = { id: number; slug: string; name: string };
type Part = (s: Slot) => SafeHtml | FilledPart | Promise<SafeHtml | string>;

/** A page's own kinds of slots whose signed-in part is the same for every person (the front page's call to launch). */
export type FixedParts = Record<string, () => SafeHtml | string>;

/**
 * A signed-in person's page from the kept visitors' page: their header links, vote controls (one
 * per listing the page ranks), follow, claim and comment forms put in its slots, from one read of
 * their state. The front page, /launches and listing pages share it; `fixed` adds a page's own
 * slots. Null (the
 * whole page is rendered for them) with a refused form's message to show, a held comment of theirs
 * (the thread they see is not the visitors'), or a slot it does not know.
 */
export function personalParts(services: WebServices, fixed: FixedParts = {}): PersonalParts {
  return async (ctx, { slots }) => {
    const user = await currentUser(ctx, services);
    if (!user || hasFlash(ctx)) return null;
    const c = await pageContext(ctx, services);
    const votes = slots.filter((s) => s.kind === 'vote').map((s) => slotValue<VoteSlot>(s));
    const follow = slots.find((s) => s.kind === 'follow');
    const listing = follow ? slotValue<FollowSlot>(follow) : null;
    const comments = slots.filter((s) => s.kind === 'c').map((s) => Number(s.arg.split('.')[0]));
    if (comments.length > 0 && !listing) return null;
    const person = await pagePerson(c, user.id, {
      votes: votes.map((v) => v.id),
      listing: listing?.id ?? null,
      comments,
    });
    if (person.heldComment) return null;
    const viewer = await voteViewer(ctx, services, user);
    const { token } = viewer;
    const reader: Reader = { token, canWrite: user.emailVerifiedAt !== null };
    const parts: Record<string, Part> = {
      nav: () => signedInLinks(token, person.unread),
      vote: (s) => {
        const l = slotValue<VoteSlot>(s);
        return keptVoteControl(services, viewer, l, person.own.has(l.id), person.voted.has(l.id), s);
      },
      follow: (s) => followControl(ctx, services, slotValue(s), person.following),
      claim: (s) =>
        s.arg && !(listing && person.own.has(listing.id))
          ? claimPrompt(ctx, services, { ...slotValue<{ slug: string }>(s), owner_id: null })
          : '',
      form: (s) => (reader.canWrite ? newCommentForm(slotValue<{ slug: string }>(s).slug, token) : CONFIRM_TO_COMMENT),
      c: (s) => commentControls(listing!.slug, commentOf(s.arg, person), reader),
    };
    for (const [kind, part] of Object.entries(fixed)) parts[kind] = part;
    if (slots.some((s) => !parts[s.kind])) return null;
    // Most parts are at hand (vote controls): only the few that are not are waited for.
    const filled = slots.map((s) => parts[s.kind]!(s));
    if (allAtHand(filled)) return filled.map(asPart);
    return Promise.all(filled).then((all) => all.map(asPart));
  };
}

const asPart = (part: SafeHtml | FilledPart): FilledPart => (part instanceof SafeHtml ? part.value : part);

const allAtHand = <T>(parts: (T | Promise<unknown>)[]): parts is T[] => parts.every((part) => !(part instanceof Promise));

/** A comment as the person sees it, from its slot (`id.parent.status`) and their state. */
function commentOf(arg: string, person: PagePerson) {
  const [id, parent, status] = arg.split('.') as [string, string, CommentView['status']];
  const own = person.mine.get(Number(id));
  const gone = status === 'deleted' || status === 'hidden';
  return {
    id: Number(id),
    parent_id: parent === '0' ? null : Number(parent),
    status,
    body: own?.body ?? '',
    mine: own !== undefined,
    voted: person.commentVotes.has(Number(id)),
    editable_until: gone ? null : (own?.editableUntil ?? null),
  };
}
