import { listingPagePerson, type ListingPagePerson } from '../../operations/read-models/page-person.ts';
import type { VoteTarget } from '../../operations/read-models/votes.ts';
import type { CommentView } from '../../operations/read-models/comments.ts';
import { commentControls, newCommentForm, type Reader } from '../comments-view.ts';
import { csrfToken } from '../csrf.ts';
import { hasFlash } from '../flash.ts';
import type { SafeHtml } from '../html.ts';
import { pageContext } from '../invoke.ts';
import { signedInLinks } from '../layout.ts';
import type { PersonalParts } from '../page-cache.ts';
import { fillSlots, readSlotData, slotsOf, type Slot } from '../personal-slots.ts';
import { currentUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import { claimPrompt } from './claim-link.ts';
import { CONFIRM_TO_COMMENT } from './comments.ts';
import { followControl } from './follow.ts';
import { voteControl } from './votes.ts';

type VoteSlot = Omit<VoteTarget, 'owner_id'> & { returnTo: string };
type Part = (s: Slot) => Promise<SafeHtml | string>;

/**
 * A signed-in person's listing page from the kept visitors' page: their header links, vote,
 * follow, claim and comment forms put in its slots, from one read of their state. Null (the whole
 * page is rendered for them) with a refused form's message to show, or a held comment of theirs
 * (the thread they see is not the visitors').
 */
export function listingPersonalParts(services: WebServices): PersonalParts {
  return async (ctx, kept) => {
    const user = await currentUser(ctx, services);
    const slots = slotsOf(kept);
    const vote = slots.find((s) => s.kind === 'vote');
    if (!user || !vote || hasFlash(ctx)) return null;
    const target = readSlotData<VoteSlot>(vote.arg);
    const commentIds = slots.filter((s) => s.kind === 'c').map((s) => Number(s.arg.split('.')[0]));
    const person = await listingPagePerson(await pageContext(ctx, services), user.id, target.id, commentIds);
    if (person.heldComment) return null;
    const token = await csrfToken(ctx, services);
    const reader: Reader = { token, canWrite: user.emailVerifiedAt !== null };
    const parts: Record<string, Part> = {
      nav: async () => signedInLinks(token, person.unread),
      vote: async (s) => {
        const { returnTo, ...l } = readSlotData<VoteSlot>(s.arg);
        return voteControl(ctx, services, { ...l, owner_id: person.own ? user.id : null }, person.voted, returnTo);
      },
      follow: async (s) => followControl(ctx, services, readSlotData(s.arg), person.following),
      claim: async (s) =>
        s.arg && !person.own ? claimPrompt(ctx, services, { ...readSlotData<{ slug: string }>(s.arg), owner_id: null }) : '',
      form: async (s) => (reader.canWrite ? newCommentForm(readSlotData<{ slug: string }>(s.arg).slug, token) : CONFIRM_TO_COMMENT),
      c: async (s) => commentControls(target.slug, commentOf(s.arg, person), reader),
    };
    const filled: string[] = [];
    for (const s of slots) {
      const part = parts[s.kind];
      if (!part) return null;
      filled.push(String(await part(s)));
    }
    let i = 0;
    return fillSlots(kept, () => filled[i++]!);
  };
}

/** A comment as the person sees it, from its slot (`id.parent.status`) and their state. */
function commentOf(arg: string, person: ListingPagePerson) {
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
