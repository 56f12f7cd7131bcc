/**
 * The load test's traffic: an open-loop arrival at a fixed rate (a request leaves on schedule
 * whether or not earlier ones have answered, as real users' would), drawn from a mix of reads and
 * writes. Every answer is recorded; every write the API accepted (2xx) is remembered for the
 * reconciliation.
 */
import { Pool } from 'undici';
import { signWebhook } from '../../src/payments/signature.ts';
import { succeededEvent } from '../../test/helpers/orders.ts';
import { realisticPaths } from '../harness.ts';
import type { Fixtures } from './fixtures.ts';

export type Kind = 'search' | 'page' | 'listing' | 'quote' | 'edit' | 'checkout' | 'pay' | 'draft' | 'claim';

/** Shares of the traffic in percent: mostly reads, as a directory's is. */
export const MIX: [Kind, number][] = [
  ['search', 38],
  ['page', 20],
  ['listing', 6],
  ['quote', 10],
  ['edit', 10],
  ['checkout', 6],
  ['pay', 6],
  ['draft', 2],
  ['claim', 2],
];

export interface Outcome {
  /** A Kind of this mix, or of another (bench/loadtest/launch-day.ts). */
  kind: string;
  /** HTTP status, `timeout` / `network` when no answer came, `tool-error` for an MCP tool result marked isError. */
  status: number | 'timeout' | 'network' | 'tool-error';
  /** The problem's `code` of a non-2xx JSON answer. */
  code?: string;
  /** Sent and answered, ms since the traffic started. */
  start: number;
  end: number;
}

/** What the API accepted (2xx), for the reconciliation. */
export interface Accepted {
  drafts: number[];
  edits: { listingId: number; headline: string }[];
  checkouts: { number: string; total: number }[];
  /** Orders whose payment webhook was accepted. */
  paid: string[];
  claims: number[];
}

export interface Response {
  status: number;
  body: any;
  /** Where a redirect points. */
  location?: string;
}

const REQUEST_TIMEOUT_MS = 30_000;

/** Fires `rate` requests a second for `durationMs`, then waits for the last answers. */
export async function runTraffic(baseUrl: string, fixtures: Fixtures, rate: number, durationMs: number) {
  const traffic = new Traffic([baseUrl], fixtures);
  const seconds = await drive(traffic, (origin) => traffic.fire(pick(), origin), rate, durationMs);
  await traffic.close();
  return { outcomes: traffic.outcomes, accepted: traffic.accepted, seconds };
}

/** The open loop: `fire` called `rate` times a second for `durationMs`; resolves (seconds taken) when the last answered. */
export async function drive(
  traffic: Pick<Traffic, 'progress'>,
  fire: (origin: number) => Promise<void>,
  rate: number,
  durationMs: number,
): Promise<number> {
  const started = performance.now();
  let sent = 0;
  const inFlight = new Set<Promise<void>>();
  const progress = setInterval(() => traffic.progress(started, sent, inFlight.size), 10_000);
  for (let elapsed = 0; elapsed < durationMs; elapsed = performance.now() - started) {
    for (const due = Math.floor((elapsed / 1000) * rate); sent < due; sent++) {
      const one = fire(started).finally(() => inFlight.delete(one));
      inFlight.add(one);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  clearInterval(progress);
  await Promise.allSettled([...inFlight]);
  return (performance.now() - started) / 1000;
}

function pick(): Kind {
  let roll = Math.random() * 100;
  for (const [kind, share] of MIX) if ((roll -= share) < 0) return kind;
  return 'search';
}

/** Requests spread over one or more api processes (in turn), with what each answered and what was accepted. */
export class Traffic {
  readonly outcomes: Outcome[] = [];
  readonly accepted: Accepted = { drafts: [], edits: [], checkouts: [], paid: [], claims: [] };
  private readonly pools: Pool[];
  private turn = 0;
  private readonly searches = realisticPaths();
  /** Orders checked out and not yet paid; a failed webhook goes back, as a provider retries it. */
  private readonly unpaid: { number: string; total: number }[] = [];
  private serial = 0;
  private nextClaim = 0;

  private readonly fixtures: Fixtures;

  constructor(baseUrls: string[], fixtures: Fixtures) {
    this.fixtures = fixtures;
    this.pools = baseUrls.map(
      (url) => new Pool(url, { connections: 256, headersTimeout: REQUEST_TIMEOUT_MS, bodyTimeout: REQUEST_TIMEOUT_MS }),
    );
  }

  private reported = 0;

  /** One line every few seconds, so a long run shows how it goes (p99 of the answers since the last line). */
  progress(origin: number, sent: number, inFlight: number): void {
    const errors = this.outcomes.filter((o) => typeof o.status !== 'number' || o.status >= 400).length;
    const at = ((performance.now() - origin) / 1000).toFixed(0);
    const recent = this.outcomes.slice(this.reported).map((o) => o.end - o.start);
    this.reported = this.outcomes.length;
    recent.sort((a, b) => a - b);
    const p99 = recent.length ? recent[Math.ceil(0.99 * recent.length) - 1]!.toFixed(0) : '-';
    console.log(`  ${at.padStart(4)} s: ${sent} sent, ${inFlight} in flight, ${errors} errors, p99 ${p99} ms since the last line`);
  }

  /** Sends one request of `kind` and records how it went. */
  fire(kind: Kind, origin: number): Promise<void> {
    return this.record(kind, origin, () => this.send(kind));
  }

  /** Runs `send` as one request of `kind` and records its answer and time. */
  async record(kind: string, origin: number, send: () => Promise<Response>): Promise<void> {
    const start = performance.now() - origin;
    const outcome: Outcome = { kind, status: 'network', start, end: start };
    try {
      const res = await send();
      outcome.status = res.status;
      if (res.status >= 400 && typeof res.body?.code === 'string') outcome.code = res.body.code;
    } catch (err) {
      outcome.status = (err as { code?: string }).code?.includes('TIMEOUT') ? 'timeout' : 'network';
    }
    outcome.end = performance.now() - origin;
    this.outcomes.push(outcome);
  }

  send(kind: Kind): Promise<Response> {
    const n = ++this.serial;
    const owned = this.fixtures.owned[n % this.fixtures.owned.length]!;
    switch (kind) {
      case 'search':
        return this.get(this.searches[n % this.searches.length]!);
      case 'page':
        return this.get(`/listings/${this.fixtures.randomSlug()}`);
      case 'listing':
        return this.get(`/api/v1/listings/${this.fixtures.randomSlug()}`);
      case 'quote':
        return this.call('POST', '/api/v1/orders/quote', owned.key, order(owned.listingId));
      case 'edit':
        return this.edit(owned, `Load test edit ${n}`);
      case 'checkout':
        return this.checkout(owned);
      case 'pay':
        return this.pay(owned);
      case 'draft':
        return this.draft(owned.key);
      case 'claim':
        return this.claim(owned.key);
    }
  }

  private async edit(owned: Fixtures['owned'][number], headline: string): Promise<Response> {
    const res = await this.call('PATCH', `/api/v1/me/listings/${owned.listingId}`, owned.key, { fields: { headline } });
    if (res.status === 200) this.accepted.edits.push({ listingId: owned.listingId, headline });
    return res;
  }

  private async checkout(owned: Fixtures['owned'][number]): Promise<Response> {
    const res = await this.call('POST', '/api/v1/orders/checkout', owned.key, order(owned.listingId));
    if (res.status === 201) {
      const placed = { number: res.body.number as string, total: res.body.total_cents as number };
      this.accepted.checkouts.push(placed);
      this.unpaid.push(placed);
    }
    return res;
  }

  /** The test provider's signed `payment_intent.succeeded` for the oldest unpaid order (a checkout if none). */
  private async pay(owned: Fixtures['owned'][number]): Promise<Response> {
    const due = this.unpaid.shift();
    if (!due) return this.checkout(owned);
    const payload = JSON.stringify(succeededEvent(due.number, due.total, { paymentId: `pi_load_${due.number}` }));
    const res = await this.request(
      'POST',
      '/webhooks/payments/test',
      {
        'content-type': 'application/json',
        'stripe-signature': signWebhook(payload, this.fixtures.webhookSecret),
      },
      payload,
    );
    if (res.status === 200) this.accepted.paid.push(due.number);
    else this.unpaid.push(due);
    return res;
  }

  private async draft(key: string): Promise<Response> {
    const res = await this.call('POST', '/api/v1/drafts', key, { url: this.fixtures.siteUrl });
    if (res.status === 201) this.accepted.drafts.push(res.body.id);
    return res;
  }

  /** A DNS claim of the next unowned listing; its TXT record is published as soon as the instructions come back. */
  private async claim(key: string): Promise<Response> {
    const slug = this.fixtures.claimable[this.nextClaim++ % this.fixtures.claimable.length]!;
    const res = await this.call('POST', '/api/v1/claims', key, { slug, method: 'dns' });
    if (res.status === 201) {
      this.accepted.claims.push(res.body.id);
      const { name, value } = res.body.instructions.record;
      this.fixtures.dns.zone.set(name.toLowerCase(), { txt: [[value]] });
    }
    return res;
  }

  get(path: string): Promise<Response> {
    return this.request('GET', path, {});
  }

  call(method: string, path: string, key: string, body: unknown): Promise<Response> {
    return this.request(method, path, { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, JSON.stringify(body));
  }

  /** One request to the next api process in turn. */
  async request(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Response> {
    const pool = this.pools[this.turn++ % this.pools.length]!;
    const res = await pool.request({ method: method as 'GET', path, headers, body });
    const text = await res.body.text();
    let parsed: any = null;
    if (String(res.headers['content-type'] ?? '').includes('json')) parsed = JSON.parse(text);
    const location = res.headers.location;
    return { status: res.statusCode, body: parsed, location: typeof location === 'string' ? location : undefined };
  }

  async close(): Promise<void> {
    await Promise.all(this.pools.map((p) => p.close()));
  }
}

/** A featured week and one category for a listing (what quotes and checkouts ask for). */
function order(listingId: number) {
  return {
    items: [
      { product: 'featured', listing_id: listingId, options: { weeks: 1 } },
      { product: 'categories', listing_id: listingId, options: { categories: ['ai'] } },
    ],
    billing_country: 'US',
  };
}
