import type { Table } from '../../db/table-types.ts';

/** The newsletter's tables (migration 047), declared for knex's `knex/types/tables`. */
export interface NewsletterSubscriberTableRow {
  id: number;
  site_id: number;
  email: string;
  user_id: number | null;
  confirm_token_hash: string | null;
  confirm_expires_at: Date | null;
  confirm_sent_at: Date | null;
  confirmed_at: Date | null;
  unsubscribed_at: Date | null;
  created_at: Date;
}

export interface NewsletterBounceTableRow {
  email: string;
  reason: string;
  created_at: Date;
}

export interface NewsletterIssueTableRow {
  id: number;
  site_id: number;
  week: string;
  created_at: Date;
  finished_at: Date | null;
}

export interface NewsletterSendTableRow {
  issue_id: number;
  subscriber_id: number;
  mail_id: number | null;
  created_at: Date;
}

declare module 'knex/types/tables.js' {
  interface Tables {
    newsletter_subscribers: Table<
      NewsletterSubscriberTableRow,
      'id' | 'user_id' | 'confirm_token_hash' | 'confirm_expires_at' | 'confirm_sent_at' | 'confirmed_at' | 'unsubscribed_at' | 'created_at'
    >;
    newsletter_bounces: Table<NewsletterBounceTableRow, 'created_at'>;
    newsletter_issues: Table<NewsletterIssueTableRow, 'id' | 'created_at' | 'finished_at'>;
    newsletter_sends: Table<NewsletterSendTableRow, 'mail_id' | 'created_at'>;
  }
}
