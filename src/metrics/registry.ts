import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from '../db/knex.ts';

/** The Prometheus series of one process; docs/operations.md "Metrics" documents each. */
export interface Metrics {
  registry: Registry;
  /** HTTP requests by operation (REST/MCP operation name, or the area for other paths), transport and status. */
  httpDuration: Histogram<'operation' | 'transport' | 'status'>;
  /** MCP tools/call messages by tool. */
  mcpToolCalls: Counter<'tool'>;
  /** MCP requests by what answered them: `sdk`, `direct` (a tools/call written by the endpoint) or `replayed` (a kept SDK answer). */
  mcpAnswers: Counter<'path'>;
}

const OPEN_ORDER_STATUSES = ['pending', 'paid', 'attention'] as const;
const CLAIM_STATUSES = ['pending', 'verified', 'expired', 'canceled', 'rejected'] as const;

/**
 * A registry per process (tests build several apps in one process, so nothing is global):
 * request metrics the app records, and gauges read from PostgreSQL at each scrape.
 */
export function createMetrics(db: Db): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by operation, transport (rest, mcp, oauth, health, web) and status',
    labelNames: ['operation', 'transport', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const mcpToolCalls = new Counter({
    name: 'mcp_tool_calls_total',
    help: 'MCP tools/call messages by tool',
    labelNames: ['tool'] as const,
    registers: [registry],
  });
  const mcpAnswers = new Counter({
    name: 'mcp_answers_total',
    help: 'MCP requests by what answered them: sdk, direct (tools/call written by the endpoint) or replayed (a kept SDK answer)',
    labelNames: ['path'] as const,
    registers: [registry],
  });
  registerDatabaseGauges(registry, db);
  return { registry, httpDuration, mcpToolCalls, mcpAnswers };
}

function registerDatabaseGauges(registry: Registry, db: Db): void {
  new Gauge({
    name: 'mail_outbox_backlog',
    help: 'Mails queued and not yet sent (given-up ones excluded)',
    registers: [registry],
    async collect() {
      this.set((await outbox(db)).count);
    },
  });
  new Gauge({
    name: 'mail_outbox_oldest_age_seconds',
    help: 'Age of the oldest mail queued and not yet sent; 0 when none waits',
    registers: [registry],
    async collect() {
      this.set((await outbox(db)).oldestSeconds);
    },
  });
  new Gauge({
    name: 'orders_open',
    help: 'Orders not yet in a final state, by status (pending, paid, attention)',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      const counts = await countBy(db, 'orders', OPEN_ORDER_STATUSES);
      for (const status of OPEN_ORDER_STATUSES) this.set({ status }, counts.get(status) ?? 0);
    },
  });
  new Gauge({
    name: 'claims',
    help: 'Claims by status',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      const counts = await countBy(db, 'claims', CLAIM_STATUSES);
      for (const status of CLAIM_STATUSES) this.set({ status }, counts.get(status) ?? 0);
    },
  });
}

async function outbox(db: Db): Promise<{ count: number; oldestSeconds: number }> {
  const row = await db('mail_outbox')
    .whereNull('sent_at')
    .whereNull('failed_at')
    .first<{ count: number; oldest: number }>(
      db.raw('count(*)::int AS count'),
      db.raw('coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS oldest'),
    );
  return { count: row!.count, oldestSeconds: row!.oldest };
}

async function countBy(db: Db, table: 'orders' | 'claims', statuses: readonly string[]): Promise<Map<string, number>> {
  const rows: { status: string; count: number }[] = await db(table)
    .whereIn('status', statuses)
    .groupBy('status')
    .select('status', db.raw('count(*)::int AS count'));
  return new Map(rows.map((r) => [r.status, r.count]));
}
