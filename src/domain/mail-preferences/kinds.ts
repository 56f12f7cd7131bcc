/**
 * The kinds of mail a person can stop: every mail we send that is not a direct answer to their
 * own action. Follower updates cover both the mail of one update and the digest of the updates
 * held back within the hour (the same news, batched), and can be stopped for one listing or all.
 * Launch reminders are the notes about an owner's free launch (booked, still waiting, badge
 * missing, postponed); weekly results tell a top-three owner their place. Comment replies and
 * listing comments are the hourly mail about replies to one's comments and comments on one's
 * listings (src/domain/comments/notices.ts). Transactional mail
 * (sign-up, password, claims, orders, receipts, refunds, webhook alerts) is not stoppable.
 */
export const MAIL_KINDS = ['follower_updates', 'launch_reminders', 'weekly_results', 'comment_replies', 'listing_comments'] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

/** The kinds that can also be stopped for one listing only. */
export const PER_LISTING_KINDS: readonly MailKind[] = ['follower_updates'];

/** What a stop (or a one-click link) covers: one person, one kind, one listing or all (null). */
export interface MailStop {
  userId: number;
  kind: MailKind;
  listingId: number | null;
}

export const isMailKind = (value: string): value is MailKind => (MAIL_KINDS as readonly string[]).includes(value);
