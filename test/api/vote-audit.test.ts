import test from 'ava';
import { isoWeekLabel, isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { scanWeek } from '../../src/domain/votes/scan.ts';
import { voidVotes } from '../../src/domain/ranking/voided-votes.ts';
import { api, request, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertDraftListing, insertLiveListing } from '../helpers/listings.ts';
import { buttonShownForVotes, ringVotes } from '../helpers/vote-rings.ts';
import { WebClient } from '../helpers/web.ts';

/** get_vote_audit over REST and MCP, the audit on the listing page, /ranking-policy and the link from /launches. */

let env: TestEnv;
let slug: string;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  const db = env.services.db;
  const id = await insertLiveListing(db, { name: 'Audited Launch', url: 'https://audited.example.com/' });
  slug = (await db('listings').where({ id }).first('slug'))!.slug;
  await ringVotes(db, [id], 3, { ageDays: 90, createdMinutesApart: 60 * 24 * 7 });
  const ring = await ringVotes(db, [id], 12, { network: () => 'shared' });
  await buttonShownForVotes(db, id);
  const site = (await db('sites').where({ key: 'main' }).first('id'))!.id;
  await scanWeek(db, site, isoWeekStart(new Date()));
  await voidVotes(db, { listingId: id, userId: ring[0]!, reason: 'Bought votes' });
});
test.after.always(() => env?.close());

const expected = () => ({
  slug,
  week: isoWeekLabel(isoWeekStart(new Date())),
  week_start: isoWeekStart(new Date()),
  votes_cast: 15,
  votes_counted: 3,
  votes_discounted: 11,
  discounted_by_reason: [{ reason: 'network_cluster', count: 11 }],
  votes_voided: 1,
  voided_by_reason: [{ reason: 'Bought votes', count: 1 }],
  final: false,
  comment_votes: { cast: 0, counted: 0, discounted: 0, discounted_by_reason: [] },
});

/** One tools/call of get_vote_audit; the JSON-RPC answer (sent as JSON or as one server-sent event). */
async function mcpCall(args: Record<string, unknown>) {
  const res = await request(env, 'POST', '/mcp', {
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_vote_audit', arguments: args } },
    headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
  });
  const data = res.text.split('\n').find((line) => line.startsWith('data: '));
  return { status: res.status, text: res.text, body: data ? JSON.parse(data.slice(6)) : res.body };
}

test('REST: the audit of the launch week, public, counts only', async (t) => {
  const res = await api(env, 'GET', `/listings/${slug}/vote-audit`);
  t.is(res.status, 200);
  t.deepEqual(res.body, expected());
  // No personal data: no account, no network, no email.
  t.notRegex(res.text, /user|email|network_hash|shared|@/);
});

test('REST: unknown, draft and malformed slugs are clear problems, never a 500', async (t) => {
  const draft = await insertDraftListing(env.services.db, { name: 'Not Live Yet' });
  const draftSlug = (await env.services.db('listings').where({ id: draft }).first('slug'))!.slug;
  for (const s of ['no-such-listing', draftSlug]) {
    const res = await api(env, 'GET', `/listings/${s}/vote-audit`);
    t.is(res.status, 404, s);
    t.is(res.headers.get('content-type'), 'application/problem+json');
    t.is(res.body.code, 'not_found');
  }
  const long = await api(env, 'GET', `/listings/${'x'.repeat(81)}/vote-audit`);
  t.is(long.status, 400);
  t.is(long.body.code, 'validation_failed');
});

test('MCP: the get_vote_audit tool answers the same as REST, and refuses bad input as a tool error', async (t) => {
  const ok = await mcpCall({ slug });
  t.is(ok.status, 200, ok.text);
  t.truthy(ok.body.result, ok.text);
  t.false(ok.body.result.isError ?? false);
  t.deepEqual(ok.body.result.structuredContent, expected());
  const missing = await mcpCall({ slug: 'no-such-listing' });
  t.true(missing.body.result.isError);
  t.is(JSON.parse(missing.body.result.content[0].text).status, 404);
  const bad = await mcpCall({});
  t.is(bad.status, 200, bad.text);
  t.true(bad.body.result?.isError, bad.text);
  t.regex(bad.body.result?.content[0].text ?? '', /slug/);
});

test('the listing page shows the audit in sentences, and /launches links to it and to the policy', async (t) => {
  const web = new WebClient(env.baseUrl);
  const page = await web.get(`/listings/${slug}`);
  t.is(page.status, 200);
  const section = page.$('#vote-audit');
  t.is(section.length, 1);
  t.is(section.find('[data-audit-cast]').text(), '15 votes');
  t.is(section.find('[data-audit-counted]').text(), '3');
  t.is(section.find('[data-audit-discounted]').text(), '11');
  t.is(section.find('[data-audit-voided]').text(), '1');
  t.regex(section.find('[data-reason=network_cluster]').text(), /11 votes: many accounts created close together, voting from one network/);
  t.is(section.find('a[href="/ranking-policy"]').length, 1);
  // Field names only in the aside for developers.
  const forPeople = section.clone();
  forPeople.find('aside').remove();
  t.notRegex(forPeople.text(), /network_cluster|get_vote_audit/);
  t.regex(section.find('aside').text(), /For developers/);

  const launches = await web.get('/launches');
  t.is(launches.status, 200);
  t.is(launches.$(`a[href="/listings/${slug}#vote-audit"]`).length, 1);
  t.true(launches.$('a[href="/ranking-policy"]').length >= 1);
});

test('/ranking-policy explains the rules in plain words, with the detectors’ own numbers', async (t) => {
  const page = await new WebClient(env.baseUrl).get('/ranking-policy');
  t.is(page.status, 200);
  const text = page.$('main').text();
  t.regex(text, /discounted/);
  t.regex(text, /counts 0/);
  t.regex(text, /More than 5 accounts, created within 24 hours/);
  t.regex(text, /After 30 days/);
  t.regex(text, /same votes always give the same score/);
  t.is(page.$('h1').length, 1);
});
