import type { Db } from '../../db/knex.ts';
import { absoluteUrl, paths } from '../../lib/paths.ts';
import { queueMail } from '../../mail/outbox.ts';
import { isoWeekLabel } from '../../workflows/contracts/weeks.ts';
import { newsletterWorkflowId } from '../../workflows/contracts/workflow-ids.ts';
import { recordWorkflowStart } from '../workflow-outbox/starts.ts';
import { issueHtml, issueSubject, issueText, readIssue } from './issue.ts';
import { signUnsubscribe, unsubscribeKey } from './links.ts';

/** The pace of a send: mails per batch, and the wait between batches that keeps to the relay's rate. */
export interface SendPace {
  batchSize: number;
  perMinute: number;
}

/** The wait after each batch so that no more than `perMinute` mails go out a minute. */
export const pauseBetweenBatchesMs = (pace: SendPace) => Math.ceil((60_000 * pace.batchSize) / pace.perMinute);

/**
 * Opens a site's issue about a closed week and records the start of its workflow
 * `newsletter:{site}:{week}` in the same transaction (the workflow-start outbox). Once per site
 * and week: a repeated weekly close finds the issue and records nothing.
 */
export async function openIssue(db: Db, site: { id: number; key: string }, monday: string, pace: SendPace): Promise<boolean> {
  return db.transaction(async (trx) => {
    const rows = await trx('newsletter_issues')
      .insert({ site_id: site.id, week: monday })
      .onConflict(['site_id', 'week'])
      .ignore()
      .returning('id');
    if (rows.length === 0) return false;
    const week = isoWeekLabel(monday);
    await recordWorkflowStart(trx, {
      kind: 'newsletter',
      workflowId: newsletterWorkflowId(site.key, week),
      input: { siteKey: site.key, week, batchSize: pace.batchSize, pauseMs: pauseBetweenBatchesMs(pace) },
    });
    return true;
  });
}

/** One batch of a send: the outbox rows to deliver, and the cursor (null once every subscriber had their turn). */
export interface IssueBatch {
  mailIds: number[];
  /** Mails queued by this call (0 for subscribers who had theirs already). */
  queued: number;
  lastSubscriberId: number | null;
}

export interface BatchContext {
  baseUrl: string;
  /** Envelope sender of the mail (NEWSLETTER_BOUNCE_ADDRESS); null: the From address. */
  bounceAddress: string | null;
}

/** The dedupe key of a subscriber's mail of an issue. */
export const issueMailKey = (issueId: number, subscriberId: number) => `newsletter:${issueId}:${subscriberId}`;

/**
 * Queues the issue for the next `batchSize` confirmed subscribers after `afterId`, skipping who
 * left or bounced. Each send is recorded (unique per subscriber and issue) in the transaction that
 * queues its mail, so a batch run again, after a crash or a retry, queues nothing twice; the mail
 * ids returned include those of an earlier run of the batch still unsent.
 */
export async function sendIssueBatch(
  db: Db,
  site: { id: number; name: string },
  monday: string,
  afterId: number,
  batchSize: number,
  c: BatchContext,
): Promise<IssueBatch> {
  const content = await readIssue(db, site, monday);
  const key = await unsubscribeKey(db);
  return db.transaction(async (trx) => {
    const issue = await trx('newsletter_issues').where({ site_id: site.id, week: monday }).first('id');
    if (!issue) return { mailIds: [], queued: 0, lastSubscriberId: null };
    const subscribers = await trx('newsletter_subscribers as s')
      .where('s.site_id', site.id)
      .andWhere('s.id', '>', afterId)
      .whereNotNull('s.confirmed_at')
      .whereNull('s.unsubscribed_at')
      .whereNotExists((q) => q.select(trx.raw('1')).from('newsletter_bounces as b').whereRaw('b.email = s.email'))
      .orderBy('s.id')
      .limit(batchSize)
      .select('s.id', 's.email');
    let queued = 0;
    for (const s of subscribers) {
      const fresh = await trx('newsletter_sends')
        .insert({ issue_id: issue.id, subscriber_id: s.id })
        .onConflict(['issue_id', 'subscriber_id'])
        .ignore()
        .returning('subscriber_id');
      if (fresh.length === 0) continue;
      const unsubscribeUrl = absoluteUrl(c.baseUrl, paths.newsletterUnsubscribe(signUnsubscribe(key, s.id)));
      await queueMail(trx, {
        to: s.email,
        subject: issueSubject(content),
        text: issueText(content, c.baseUrl, unsubscribeUrl),
        dedupeKey: issueMailKey(issue.id, s.id),
        newsletter: {
          subscriberId: s.id,
          unsubscribeUrl,
          html: issueHtml(content, c.baseUrl, unsubscribeUrl),
          envelopeFrom: c.bounceAddress,
        },
      });
      queued += 1;
    }
    const keys = subscribers.map((s) => issueMailKey(issue.id, s.id));
    const mails = keys.length
      ? await trx('mail_outbox').whereIn('dedupe_key', keys).whereNull('sent_at').orderBy('id').select('id', 'dedupe_key')
      : [];
    for (const m of mails) {
      await trx('newsletter_sends')
        .where({ issue_id: issue.id, subscriber_id: Number(m.dedupe_key!.split(':')[2]) })
        .whereNull('mail_id')
        .update({ mail_id: m.id });
    }
    const done = subscribers.length < batchSize;
    if (done) await trx('newsletter_issues').where({ id: issue.id }).whereNull('finished_at').update({ finished_at: trx.fn.now() });
    return { mailIds: mails.map((m) => m.id), queued, lastSubscriberId: done ? null : subscribers.at(-1)!.id };
  });
}
