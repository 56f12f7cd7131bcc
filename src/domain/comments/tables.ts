import type { Table } from '../../db/table-types.ts';

/** The discussion's tables (migration 045) as knex sees them. */

export type CommentStatus = 'visible' | 'held' | 'hidden' | 'deleted';

export interface CommentTableRow {
  id: number;
  listing_id: number;
  user_id: number | null;
  parent_id: number | null;
  body: string;
  status: string;
  hidden_reason: string | null;
  votes: number;
  body_hash: string;
  created_at: Date;
  edited_at: Date | null;
  deleted_at: Date | null;
}

export interface CommentVoteTableRow {
  comment_id: number;
  user_id: number;
  created_at: Date;
  discount_reason: string | null;
}

export interface CommentReportTableRow {
  id: number;
  comment_id: number;
  reporter_id: number;
  reason: string;
  note: string | null;
  created_at: Date;
  resolved_at: Date | null;
  resolved_by: number | null;
}

/** A person's pending comment mail (migration 050): when the notifications it holds are mailed. */
export interface NotificationMailBatchTableRow {
  user_id: number;
  due_at: Date;
}

declare module 'knex/types/tables.js' {
  interface Tables {
    comments: Table<CommentTableRow, 'id' | 'user_id' | 'parent_id' | 'status' | 'hidden_reason' | 'votes' | 'edited_at' | 'deleted_at'>;
    comment_votes: Table<CommentVoteTableRow, 'discount_reason'>;
    comment_reports: Table<CommentReportTableRow, 'id' | 'note' | 'resolved_at' | 'resolved_by'>;
    notification_mail_batches: Table<NotificationMailBatchTableRow>;
  }
}
