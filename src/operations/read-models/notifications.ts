import { unreadCount } from '../../domain/updates/notification-reads.ts';
import type { OperationContext } from '../operation.ts';

/** The signed-in person's unread notifications, for the header of their pages (one indexed count). */
export function unreadNotifications(c: Pick<OperationContext, 'db'>, userId: number): Promise<number> {
  return unreadCount(c.db, userId);
}
