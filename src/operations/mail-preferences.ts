import { z } from 'zod';
import { MAIL_KINDS } from '../domain/mail-preferences/kinds.ts';
import { useStopLink } from '../domain/mail-preferences/links.ts';
import { changeMailPreferences, readMailPreferences } from '../domain/mail-preferences/stops.ts';
import { callerId, defineOperation } from './operation.ts';
import { Id } from './schemas.ts';

const MailKind = z
  .enum(MAIL_KINDS)
  .describe(
    'follower_updates: updates and digests of the listings you follow; launch_reminders: notes about your free launches; weekly_results: your place in a week’s top three; comment_replies: replies to your comments; listing_comments: new comments on your listings (both at most one mail an hour)',
  );

const MailPreferences = z.object({
  kinds: z.array(z.object({ kind: MailKind, receiving: z.boolean() })).describe('Each kind of mail you can stop, and whether you get it'),
  stopped_listings: z
    .array(z.object({ listing_id: Id, name: z.string(), slug: z.string() }))
    .describe('Listings whose follower updates you stopped one by one'),
});

export const getMailPreferencesOp = defineOperation({
  name: 'get_mail_preferences',
  summary: 'Which mails you get',
  description:
    'Each kind of mail that is not an answer to your own action, and whether you get it. Sign-in, order and claim mails are always sent.',
  method: 'GET',
  path: '/me/mail-preferences',
  scope: 'account:read',
  idempotent: false,
  readOnly: true,
  tags: ['mail'],
  input: z.object({}),
  output: MailPreferences,
  handler: (_input, ctx) => readMailPreferences(ctx.db, callerId(ctx)),
});

export const updateMailPreferencesOp = defineOperation({
  name: 'update_mail_preferences',
  summary: 'Stop or resume kinds of mail',
  description:
    'Fields left out stay as they are. A change holds at once, also for mails already queued. `listings` stops or resumes the follower updates of single listings.',
  method: 'PATCH',
  path: '/me/mail-preferences',
  scope: 'listings:write',
  idempotent: true,
  readOnly: false,
  tags: ['mail'],
  input: z.object({
    follower_updates: z.boolean().optional(),
    launch_reminders: z.boolean().optional(),
    weekly_results: z.boolean().optional(),
    comment_replies: z.boolean().optional(),
    listing_comments: z.boolean().optional(),
    listings: z
      .array(z.object({ listing_id: Id, receiving: z.boolean() }).strict())
      .max(100)
      .optional(),
  }),
  output: MailPreferences,
  handler: (input, ctx) =>
    changeMailPreferences(ctx.db, callerId(ctx), {
      kinds: {
        follower_updates: input.follower_updates,
        launch_reminders: input.launch_reminders,
        weekly_results: input.weekly_results,
        comment_replies: input.comment_replies,
        listing_comments: input.listing_comments,
      },
      listings: input.listings,
    }),
});

export const unsubscribeMailOp = defineOperation({
  name: 'unsubscribe_mail',
  summary: 'Stop a kind of mail with the token of its unsubscribe link',
  description:
    'The token is the last part of the link at the end of a mail (and in its List-Unsubscribe header). No sign-in needed; using it again changes nothing.',
  method: 'POST',
  path: '/mail/unsubscribe',
  idempotent: false,
  readOnly: false,
  tags: ['mail'],
  errorCodes: ['unsubscribe_link_invalid'],
  input: z.object({ token: z.string().max(200) }),
  output: z.object({
    kind: MailKind,
    listing: z.object({ id: Id, name: z.string(), slug: z.string() }).nullable(),
    stopped: z.boolean(),
  }),
  handler: (input, ctx) => useStopLink(ctx.db, input.token),
});

/** The kinds of mail people can stop, for the transports' forms. */
export { MAIL_KINDS };

export const mailPreferenceOperations = [getMailPreferencesOp, updateMailPreferencesOp, unsubscribeMailOp];
