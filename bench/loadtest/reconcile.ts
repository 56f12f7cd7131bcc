/**
 * After the traffic: wait (bounded) for the workflows to finish what was asked of them, then check
 * the database and Temporal against what the API accepted.
 */
import type { Knex } from 'knex';
import { Client, Connection } from '@temporalio/client';
import type { Db } from '../../src/db/knex.ts';
import type { Accepted } from './traffic.ts';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
  /** Workflows of the rows that failed the check, described under it. */
  flows?: string[];
}

/** Drafts still crawling, accepted payments not applied yet, paid orders not fulfilled, accepted claims still pending. */
async function unsettled(db: Db, accepted: Accepted): Promise<number> {
  const [drafts, payments, orders, claims] = await Promise.all([
    count(db('drafts').whereIn('id', accepted.drafts).whereIn('status', ['crawling', 'drafting'])),
    count(db('orders').whereIn('number', accepted.paid).whereNull('paid_at')),
    count(db('orders').whereNotNull('paid_at').whereNot({ status: 'fulfilled' }).whereNot({ status: 'attention' })),
    count(db('claims').whereIn('id', accepted.claims).where({ status: 'pending' })),
  ]);
  return drafts + payments + orders + claims;
}

/** Polls until nothing is left to do or `timeoutMs` passed; returns how long it took. */
export async function settle(db: Db, accepted: Accepted, timeoutMs: number): Promise<{ ms: number; left: number }> {
  const started = Date.now();
  let left = await unsettled(db, accepted);
  while (left > 0 && Date.now() - started < timeoutMs) {
    await new Promise((r) => setTimeout(r, 1000));
    left = await unsettled(db, accepted);
  }
  return { ms: Date.now() - started, left };
}

/** Every accepted write present, every paid order fulfilled exactly once, no workflow failed. */
export async function reconcile(db: Db, accepted: Accepted, temporal: { address: string; namespace: string }): Promise<Check[]> {
  const connection = await Connection.connect({ address: temporal.address });
  try {
    const client = new Client({ connection, namespace: temporal.namespace });
    const checks = [
      ...(await writesPresent(db, accepted)),
      await paidOrdersFulfilled(db, accepted),
      await draftsFinished(db, accepted),
      await claimsVerified(db, accepted),
      await noFailedWorkflow(client),
    ];
    for (const check of checks) {
      if (check.flows?.length) check.detail += `\n         ${(await explain(client, check.flows)).join('\n         ')}`;
    }
    return checks;
  } finally {
    await connection.close();
  }
}

/** Where the first few workflows of a failed check are: status, pending activities and their last failure. */
async function explain(client: Client, workflowIds: string[]): Promise<string[]> {
  return Promise.all(
    workflowIds.slice(0, 3).map(async (id) => {
      const described = await client.workflow
        .getHandle(id)
        .describe()
        .catch((err: Error) => err);
      if (described instanceof Error) return `${id}: ${described.message}`;
      if (described.status.name === 'FAILED') return `${id}: FAILED, ${await failureOf(client, id)}`;
      const pending = (described.raw.pendingActivities ?? []).map(
        (a) => `${a.activityType?.name} attempt ${a.attempt}${a.lastFailure ? ` (${a.lastFailure.message})` : ''}`,
      );
      const interrupted = await interruptions(client, id);
      return `${id}: ${described.status.name}, ${described.historyLength} events${interrupted}${pending.length ? `, pending ${pending.join('; ')}` : ''}`;
    }),
  );
}

async function writesPresent(db: Db, accepted: Accepted): Promise<Check[]> {
  const edits = await db('listing_versions')
    .whereIn('listing_id', [...new Set(accepted.edits.map((e) => e.listingId))])
    .where({ operation: 'update_my_listing' })
    .select<{ listing_id: number; headline: string }[]>('listing_id', db.raw(`changes->'headline'->>'after' AS headline`));
  const written = new Set(edits.map((e) => `${e.listing_id}:${e.headline}`));
  const missingEdits = accepted.edits.filter((e) => !written.has(`${e.listingId}:${e.headline}`));
  const present = async (table: string, column: string, values: (string | number)[]) =>
    values.length - (await count(db(table).whereIn(column, values)));
  return [
    presence('drafts', accepted.drafts.length, await present('drafts', 'id', accepted.drafts)),
    presence('edits (a version per edit)', accepted.edits.length, missingEdits.length),
    presence(
      'checkouts',
      accepted.checkouts.length,
      await present(
        'orders',
        'number',
        accepted.checkouts.map((c) => c.number),
      ),
    ),
    presence('claims', accepted.claims.length, await present('claims', 'id', accepted.claims)),
  ];
}

function presence(what: string, accepted: number, missing: number): Check {
  return { name: `accepted ${what} present`, ok: missing === 0, detail: `${accepted - missing}/${accepted}` };
}

/**
 * Each accepted payment made its order paid, and each paid order is fulfilled with exactly the
 * placements it bought: one featured week and one category per order (traffic.ts `order`).
 */
async function paidOrdersFulfilled(db: Db, accepted: Accepted): Promise<Check> {
  const notPaid = await count(db('orders').whereIn('number', accepted.paid).whereNull('paid_at'));
  const paid = await db('orders as o')
    .whereNotNull('o.paid_at')
    .select(
      'o.number',
      'o.status',
      db.raw('(SELECT count(*) FROM order_lines l WHERE l.order_id = o.id AND l.fulfilled_at IS NULL)::int AS open_lines'),
      db.raw(
        '(SELECT count(*) FROM featured_placements f JOIN order_lines l ON l.id = f.order_line_id WHERE l.order_id = o.id)::int AS featured',
      ),
      db.raw(
        '(SELECT count(*) FROM category_placements c JOIN order_lines l ON l.id = c.order_line_id WHERE l.order_id = o.id)::int AS categories',
      ),
    );
  const wrong = paid.filter((o: any) => o.status !== 'fulfilled' || o.open_lines !== 0 || o.featured !== 1 || o.categories !== 1);
  const statuses = tally(wrong.map((o: any) => `${o.status} f${o.featured} c${o.categories}`));
  return {
    name: 'every paid order fulfilled exactly once',
    ok: notPaid === 0 && wrong.length === 0,
    detail: `${paid.length - wrong.length}/${paid.length} paid orders fulfilled with 1 featured week + 1 category; ${notPaid} accepted payments not recorded${wrong.length ? `; wrong: ${statuses}` : ''}`,
    flows: wrong.map((o: any) => `order:${o.number}`),
  };
}

async function draftsFinished(db: Db, accepted: Accepted): Promise<Check> {
  const rows = await db('drafts').whereIn('id', accepted.drafts).select('id', 'status', 'failure_code');
  const open = rows.filter((r: { status: string }) => r.status !== 'ready');
  const reasons = tally(open.flatMap((r: { failure_code: string | null }) => (r.failure_code ? [r.failure_code] : [])));
  return {
    name: 'every accepted draft ready (none stuck or failed)',
    ok: open.length === 0,
    detail: `${byStatus(rows)}${reasons ? `; failure codes: ${reasons}` : ''}`,
    flows: open.map((r: { id: number }) => `draft:${r.id}`),
  };
}

async function claimsVerified(db: Db, accepted: Accepted): Promise<Check> {
  const rows = await db('claims').whereIn('id', accepted.claims).select('id', 'status');
  const open = rows.filter((r: { status: string }) => r.status !== 'verified');
  return {
    name: 'every accepted claim verified by its DNS record',
    ok: open.length === 0,
    detail: byStatus(rows),
    flows: open.map((r: { id: number }) => `claim:${r.id}`),
  };
}

/** Workflows that ended Failed or TimedOut in the namespace. */
async function noFailedWorkflow(client: Client): Promise<Check> {
  const failed: string[] = [];
  for await (const wf of client.workflow.list({ query: 'ExecutionStatus="Failed" OR ExecutionStatus="TimedOut"' })) {
    failed.push(wf.workflowId);
  }
  const { count: total } = await client.workflow.count();
  return {
    name: 'no workflow failed or timed out',
    ok: failed.length === 0,
    detail: `${failed.length} of ${total} workflows`,
    flows: failed,
  };
}

/** Workflow tasks that timed out or failed (a killed worker, a failed local activity): where a run was cut. */
async function interruptions(client: Client, id: string): Promise<string> {
  const history = await client.workflow.getHandle(id).fetchHistory();
  const cut = (history.events ?? []).filter((e) => e.workflowTaskTimedOutEventAttributes || e.workflowTaskFailedEventAttributes);
  return cut.length ? ` (${cut.length} workflow tasks timed out or failed)` : '';
}

/** What failed a workflow: its last failed or timed-out activity's error, else the workflow's own. */
async function failureOf(client: Client, id: string): Promise<string> {
  const history = await client.workflow.getHandle(id).fetchHistory();
  const messages = (history.events ?? []).flatMap((e) => {
    const failed = e.activityTaskFailedEventAttributes?.failure ?? e.activityTaskTimedOutEventAttributes?.failure;
    return failed ? [`activity ${failed.message}${failed.cause?.message ? `: ${failed.cause.message}` : ''}`] : [];
  });
  const closed = history.events?.at(-1)?.workflowExecutionFailedEventAttributes?.failure?.message;
  return messages.at(-1) ?? closed ?? 'no failure recorded';
}

const byStatus = (rows: { status: string }[]) => tally(rows.map((r) => r.status)) || 'none';

function tally(values: string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].map(([v, n]) => `${v} ×${n}`).join(', ');
}

async function count(query: Knex.QueryBuilder): Promise<number> {
  const [row] = (await query.count({ n: '*' })) as unknown as { n: number }[];
  return Number(row!.n);
}
