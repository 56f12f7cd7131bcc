import type { Db } from '../../db/knex.ts';
import type { OutgoingMail } from '../../mail/outbox.ts';
import { absoluteUrl, paths } from '../../lib/paths.ts';
import type { MailStop } from './kinds.ts';
import { mailLinkKey, signStop } from './tokens.ts';

/** A mail before it is made stoppable: the sender's words, without the unsubscribe lines. */
export type MailDraft = Omit<OutgoingMail, 'unsubscribe'>;

/** Makes drafts stoppable: the one-click link in words at the end, and the RFC 8058 headers. */
export type MakeStoppable = (stop: MailStop, draft: MailDraft) => OutgoingMail;

/**
 * Reads the link key once, for a batch of mail. Every mail that is not a direct answer to the
 * person's own action goes through it: the text ends with "Stop these mails: <link>" (the same
 * link the `List-Unsubscribe` header carries), and the outbox row knows whom and what it is for.
 */
export async function stoppableMails(db: Db, baseUrl: string): Promise<MakeStoppable> {
  const key = await mailLinkKey(db);
  return (stop, draft) => {
    const url = absoluteUrl(baseUrl, paths.unsubscribe(signStop(key, stop)));
    return {
      ...draft,
      text: [
        draft.text.trimEnd(),
        '',
        `Stop these mails: ${url}`,
        `Choose which mails you get: ${absoluteUrl(baseUrl, paths.mailPreferences)}`,
      ].join('\n'),
      unsubscribe: { recipientId: stop.userId, kind: stop.kind, listingId: stop.listingId, url },
    };
  };
}
