import { z } from 'zod';
import { markAllRead, markRead } from '../domain/updates/notification-reads.ts';
import { callerId, defineOperation } from './operation.ts';
import { Id } from './schemas.ts';

// Marking read needs only `account:read`: whoever may read the notifications may say they read them.

export const markNotificationsReadOp = defineOperation({
  name: 'mark_notifications_read',
  summary: 'Mark some of your notifications read',
  description:
    'Marks the notifications with these ids read (marking one twice changes nothing). Ids that are not your notifications ' +
    '(unknown, or another person’s) are ignored and listed in `not_found`. Returns your unread count after the change.',
  method: 'POST',
  path: '/me/notifications/read',
  scope: 'account:read',
  idempotent: false,
  readOnly: false,
  tags: ['notifications'],
  input: z.object({ ids: z.array(Id).min(1).max(100).describe('Notification ids from list_my_notifications') }),
  output: z.object({
    marked: z.array(Id).describe('Your notifications now read'),
    not_found: z.array(Id).describe('Ids that are not your notifications: ignored'),
    unread: z.int().describe('Your unread notifications after the change'),
  }),
  handler: (input, ctx) => markRead(ctx.db, callerId(ctx), input.ids, ctx.clock.now()),
});

export const markAllNotificationsReadOp = defineOperation({
  name: 'mark_all_notifications_read',
  summary: 'Mark all your notifications read',
  description: 'Marks every unread notification of your account read.',
  method: 'POST',
  path: '/me/notifications/read-all',
  scope: 'account:read',
  idempotent: false,
  readOnly: false,
  tags: ['notifications'],
  input: z.object({}),
  output: z.object({ marked: z.int().describe('How many were unread'), unread: z.int() }),
  handler: (_input, ctx) => markAllRead(ctx.db, callerId(ctx), ctx.clock.now()),
});

/** Reading marks of notifications (the list is list_my_notifications). */
export const notificationOperations = [markNotificationsReadOp, markAllNotificationsReadOp];
