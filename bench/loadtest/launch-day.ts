/**
 * The launch-day mix: visitors reading the front page, /launches and listing pages without a
 * session; signed-in voters voting and unvoting through the web form (their own session and CSRF
 * token); commenters posting comments and replies over REST with their own keys; owners editing
 * their listings; AI agents searching over MCP (the official client, Streamable HTTP, tools/call
 * search_listings); checkouts paid with the test provider's signed webhook. Every HTTP request goes
 * to the next api process in turn; each agent keeps to one, half of them on each. Accepted votes,
 * unvotes and comments are remembered for the reconciliation.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { realisticPaths } from '../harness.ts';
import type { Fixtures } from './fixtures.ts';
import type { LaunchFixtures } from './launch-fixtures.ts';
import { drive, Traffic, type Response } from './traffic.ts';
import type { VoteEvent } from './vote-tally.ts';

export type LaunchKind = 'visitor' | 'voter' | 'commenter' | 'owner' | 'agent' | 'checkout' | 'pay';

/** Shares in percent: a launch day is read far more than written, with a burst of votes and talk. */
export const LAUNCH_MIX: [LaunchKind, number][] = [
  ['visitor', 45],
  ['voter', 20],
  ['commenter', 8],
  ['owner', 7],
  ['agent', 12],
  ['checkout', 4],
  ['pay', 4],
];

const AGENTS_PER_API = 4;
/** Of a voter's turns, the share that takes back one of the votes held (when there is one). */
const UNVOTE_SHARE = 0.15;
const TOOL_TIMEOUT_MS = 30_000;

export interface LaunchAccepted {
  votes: VoteEvent[];
  /** Listing of each vote pair whose last request got no 303 (its state is unknown). */
  votesInDoubt: number[];
  comments: number[];
}

export async function runLaunchDay(baseUrls: string[], fixtures: Fixtures, launch: LaunchFixtures, rate: number, durationMs: number) {
  const traffic = new LaunchTraffic(baseUrls, fixtures, launch);
  await traffic.connectAgents(baseUrls);
  const seconds = await drive(traffic.base, (origin) => traffic.fire(pick(), origin), rate, durationMs);
  await traffic.close();
  return { outcomes: traffic.base.outcomes, accepted: traffic.base.accepted, launch: traffic.accepted, seconds };
}

function pick(): LaunchKind {
  let roll = Math.random() * 100;
  for (const [kind, share] of LAUNCH_MIX) if ((roll -= share) < 0) return kind;
  return 'visitor';
}

const any = <T>(list: T[]): T => list[Math.floor(Math.random() * list.length)]!;

class LaunchTraffic {
  readonly base: Traffic;
  readonly accepted: LaunchAccepted = { votes: [], votesInDoubt: [], comments: [] };
  private readonly launch: LaunchFixtures;
  private readonly fixtures: Fixtures;
  private readonly queries = realisticPaths().map((p) => new URL(p, 'http://x').searchParams.get('q')!);
  private agents: Client[] = [];
  /** Vote pairs (`listing:user`) holding a vote, and those with a request under way or in doubt. */
  private readonly holding = new Set<string>();
  private readonly busy = new Set<string>();
  /** Top-level comments accepted so far, to reply to. */
  private readonly topLevel: number[] = [];
  private serial = 0;

  constructor(baseUrls: string[], fixtures: Fixtures, launch: LaunchFixtures) {
    this.base = new Traffic(baseUrls, fixtures);
    this.fixtures = fixtures;
    this.launch = launch;
  }

  /** Agents connect once (initialize) and then call tools, as an agent's MCP session does. */
  async connectAgents(baseUrls: string[]): Promise<void> {
    for (const url of baseUrls) {
      for (let i = 0; i < AGENTS_PER_API; i++) {
        const client = new Client({ name: `launch-agent-${i}`, version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', url)));
        this.agents.push(client);
      }
    }
  }

  fire(kind: LaunchKind, origin: number): Promise<void> {
    const n = ++this.serial;
    switch (kind) {
      case 'visitor':
        return this.base.record(kind, origin, () => this.base.get(this.visitorPath(n)));
      case 'voter':
        return this.base.record(kind, origin, () => this.vote());
      case 'commenter':
        return this.base.record(kind, origin, () => this.comment(n));
      case 'owner':
        return this.base.record(kind, origin, () => this.base.send('edit'));
      case 'agent':
        return this.agentSearch(origin, n);
      case 'checkout':
      case 'pay':
        return this.base.record(kind, origin, () => this.base.send(kind));
    }
  }

  private visitorPath(n: number): string {
    switch (n % 5) {
      case 0:
        return '/';
      case 1:
        return '/launches';
      case 2:
        return `/listings/${this.fixtures.randomSlug()}`;
      default:
        return `/listings/${any(this.launch.launches).slug}`;
    }
  }

  /** Which voter on which launch: mostly a vote not cast yet (up to three tries), sometimes a vote taken back. */
  private votePair(): { voter: LaunchFixtures['voters'][number]; listing: LaunchFixtures['launches'][number] } {
    const held = [...this.holding];
    if (held.length && Math.random() < UNVOTE_SHARE) {
      const [listingId, userId] = any(held).split(':').map(Number);
      return { voter: this.launch.voters.find((v) => v.id === userId)!, listing: this.launch.launches.find((l) => l.id === listingId)! };
    }
    const voter = any(this.launch.voters);
    let listing = any(this.launch.launches);
    for (let tries = 0; tries < 3 && this.holding.has(`${listing.id}:${voter.id}`); tries++) listing = any(this.launch.launches);
    return { voter, listing };
  }

  /**
   * A vote, or an unvote of a pair holding one. One request per pair at a time, so the answers
   * come in the order the votes were applied.
   */
  private async vote(): Promise<Response> {
    const { voter, listing } = this.votePair();
    const pair = `${listing.id}:${voter.id}`;
    if (this.busy.has(pair)) return this.base.get(`/listings/${listing.slug}`); // that pair's request is under way: the voter reads instead
    const change = this.holding.has(pair) ? -1 : 1;
    const action = change === 1 ? 'vote' : 'unvote';
    this.busy.add(pair);
    const body = `_csrf=${encodeURIComponent(voter.csrf)}&return_to=${encodeURIComponent(`/listings/${listing.slug}`)}`;
    const headers = { cookie: voter.cookie, 'content-type': 'application/x-www-form-urlencoded' };
    let res: Response | undefined;
    try {
      res = await this.base.request('POST', `/listings/${listing.slug}/${action}`, headers, body);
      return res;
    } finally {
      if (res?.status === 303 && res.location?.includes(`notice=${action}d`)) {
        this.accepted.votes.push({ listingId: listing.id, userId: voter.id, change });
        if (change === 1) this.holding.add(pair);
        else this.holding.delete(pair);
        this.busy.delete(pair);
      } else this.accepted.votesInDoubt.push(listing.id); // stays busy: its state is unknown
    }
  }

  /** A comment on a launch, or (two in five, once there are some) a reply to an accepted top-level comment. */
  private async comment(n: number): Promise<Response> {
    const key = this.launch.commenters[n % this.launch.commenters.length]!;
    const body = { body: `Launch day comment ${n}: how does this compare with the others this week?` };
    const reply = n % 5 < 2 && this.topLevel.length > 0;
    const res = reply
      ? await this.base.call('POST', `/api/v1/comments/${any(this.topLevel)}/replies`, key, body)
      : await this.base.call('POST', `/api/v1/listings/${any(this.launch.launches).id}/comments`, key, body);
    if (res.status === 201) {
      this.accepted.comments.push(res.body.id);
      if (!reply) this.topLevel.push(res.body.id);
    }
    return res;
  }

  /** One tools/call search_listings by one of the connected agents; an isError result counts as an error. */
  private async agentSearch(origin: number, n: number): Promise<void> {
    const start = performance.now() - origin;
    let status: number | 'timeout' | 'network' | 'tool-error' = 'network';
    let code: string | undefined;
    try {
      const agent = this.agents[n % this.agents.length]!;
      const result = await agent.callTool(
        { name: 'search_listings', arguments: { q: this.queries[n % this.queries.length] } },
        { timeout: TOOL_TIMEOUT_MS },
      );
      status = result.isError ? 'tool-error' : 200;
      if (result.isError) code = JSON.stringify(result.content).slice(0, 60);
    } catch (err) {
      const c = (err as { code?: unknown }).code;
      status = typeof c === 'number' && c >= 400 && c < 600 ? c : String(err).includes('timed out') ? 'timeout' : 'network';
      code = String((err as Error).message).slice(0, 60);
    }
    this.base.outcomes.push({ kind: 'agent', status, code, start, end: performance.now() - origin });
  }

  async close(): Promise<void> {
    await Promise.all(this.agents.map((a) => a.close()));
    await this.base.close();
  }
}
