import type { Knex } from 'knex';

/**
 * The weekly newsletter (docs/newsletter.md): subscribers per site and address (double opt-in:
 * only a hash of the confirmation token is kept), one issue per site and closed week, and one
 * send per subscriber and issue, recorded in the transaction that queues its mail, so a resumed
 * send skips whoever already has theirs. Outbox rows of the newsletter know their subscriber
 * (delivery drops them once the address unsubscribed or bounced), carry an HTML part beside the
 * text and the bounce address as envelope sender.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('newsletter_subscribers', (t) => {
    t.increments('id');
    t.integer('site_id').notNullable().references('sites.id').onDelete('CASCADE');
    // Lower-cased; the same address subscribes once per site.
    t.text('email').notNullable();
    // A signed-in subscriber; their confirmed account email counts as confirmed.
    t.integer('user_id').references('users.id').onDelete('SET NULL');
    t.text('confirm_token_hash').unique().comment('SHA-256 of the pending confirmation link; null once used');
    t.timestamp('confirm_expires_at', { useTz: true });
    t.timestamp('confirm_sent_at', { useTz: true }).comment(
      'Last confirmation mail; re-sent at most once per NEWSLETTER_CONFIRM_RESEND_MINUTES',
    );
    t.timestamp('confirmed_at', { useTz: true });
    t.timestamp('unsubscribed_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.unique(['site_id', 'email']);
  });
  await db.schema.createTable('newsletter_bounces', (t) => {
    // An address that bounced or complained: never mailed a newsletter again, on any site.
    t.text('email').primary();
    t.text('reason').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db.schema.createTable('newsletter_issues', (t) => {
    t.increments('id');
    t.integer('site_id').notNullable().references('sites.id').onDelete('CASCADE');
    t.date('week').notNullable().comment('Monday of the closed week the issue is about');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.unique(['site_id', 'week']);
  });
  await db.schema.createTable('newsletter_sends', (t) => {
    t.integer('issue_id').notNullable().references('newsletter_issues.id').onDelete('CASCADE');
    t.integer('subscriber_id').notNullable().references('newsletter_subscribers.id').onDelete('CASCADE');
    t.integer('mail_id').comment('The outbox row queued with it (gone once purged)');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.primary(['issue_id', 'subscriber_id']);
  });
  await db.schema.alterTable('mail_outbox', (t) => {
    t.text('body_html').comment('An HTML alternative to body_text (the newsletter); null: text only');
    t.text('envelope_from').comment('Envelope sender (Return-Path) where bounces go; null: MAIL_FROM');
    t.integer('newsletter_subscriber_id').comment('The subscriber of a newsletter mail; dropped when they left or bounced');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('mail_outbox', (t) => {
    t.dropColumn('body_html');
    t.dropColumn('envelope_from');
    t.dropColumn('newsletter_subscriber_id');
  });
  await db.schema.dropTableIfExists('newsletter_sends');
  await db.schema.dropTableIfExists('newsletter_issues');
  await db.schema.dropTableIfExists('newsletter_bounces');
  await db.schema.dropTableIfExists('newsletter_subscribers');
}
