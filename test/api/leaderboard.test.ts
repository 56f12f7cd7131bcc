import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import test from 'ava';
import { voidVotes } from '../../src/domain/ranking/voided-votes.ts';
import { castVote } from '../../src/domain/ranking/votes.ts';
import { freezeWeek } from '../../src/domain/ranking/weekly-close.ts';
import { addWeeks, isoWeekLabel, isoWeekMonday, isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { shiftIntoPast, voters } from '../helpers/votes.ts';

/** get_community_leaderboard with `week`: live and final states, removed votes, bad weeks. */

let env: TestEnv;
test.before(async () => {
  // No cache: each call must see the votes cast just before it.
  env = await startTestEnv(import.meta.url, { LEADERBOARD_CACHE_TTL_MS: '0' });
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const mainSite = async () => (await db()('sites').where({ key: 'main' }).first('id'))!.id as number;

/** A live listing of this week with `count` votes of new confirmed accounts; returns its id and the voters. */
async function launchWithVotes(name: string, count: number) {
  const id = await insertLiveListing(db(), { name, url: `https://${name.toLowerCase().replace(/\W+/g, '')}.example.net/` });
  const crowd = await voters(db(), env.baseUrl, count);
  for (const v of crowd) await castVote(db(), v.id, id, new Date());
  return { id, crowd };
}

const board = (week?: string) =>
  api(env, 'GET', `/leaderboards/community-weekly${week === undefined ? '' : `?week=${encodeURIComponent(week)}`}`);

test.serial('the current week is live, ranked by launch-week votes, with removed votes and the formula', async (t) => {
  const a = await launchWithVotes('Week Alpha', 2);
  const b = await launchWithVotes('Week Beta', 4);
  await voidVotes(db(), { listingId: b.id, reason: 'vote ring', userId: b.crowd[0]!.id });
  await voidVotes(db(), { listingId: b.id, reason: 'vote ring', userId: b.crowd[1]!.id });
  await voidVotes(db(), { listingId: b.id, reason: 'vote ring', userId: b.crowd[1]!.id }); // again: nothing more
  const res = await board();
  t.is(res.status, 200);
  t.is(res.body.state, 'live');
  t.is(res.body.week, isoWeekLabel(isoWeekStart(new Date())));
  t.is(res.body.week_start, isoWeekStart(new Date()));
  t.regex(res.body.formula, /launch week/);
  const mine = res.body.items.filter((i: { id: number }) => [a.id, b.id].includes(i.id));
  // Two votes each now; ties go to the earlier listing.
  t.deepEqual(
    mine.map((i: { id: number; score: number; votes_removed: number }) => [i.id, i.score, i.votes_removed]),
    [
      [a.id, 2, 0],
      [b.id, 2, 2],
    ],
  );
  t.deepEqual(
    res.body.items.map((i: { rank: number }) => i.rank),
    res.body.items.map((_: unknown, n: number) => n + 1),
  );
  // Naming the current week gives the same answer.
  t.deepEqual((await board(res.body.week)).body, res.body);
  // Pages of the ranking: ranks continue across pages.
  t.is(res.body.total, res.body.items.length);
  const second = await api(env, 'GET', '/leaderboards/community-weekly?per_page=1&page=2');
  t.deepEqual([second.body.items.length, second.body.items[0].rank, second.body.items[0].id], [1, 2, res.body.items[1].id]);
  t.deepEqual([second.body.page, second.body.per_page, second.body.total], [2, 1, res.body.total]);
  const beyond = await api(env, 'GET', '/leaderboards/community-weekly?page=99');
  t.deepEqual([beyond.body.items, beyond.body.total], [[], res.body.total]);
  t.is((await api(env, 'GET', '/leaderboards/community-weekly?per_page=101')).status, 400);
});

test.serial('a closed week is final and keeps its frozen ranking', async (t) => {
  const a = await launchWithVotes('Closed One', 1);
  const b = await launchWithVotes('Closed Two', 3);
  await shiftIntoPast(db(), a.id, 2);
  await shiftIntoPast(db(), b.id, 2);
  const week = isoWeekLabel(addWeeks(isoWeekStart(new Date()), -2));

  const before = await board(week);
  t.is(before.body.state, 'live');
  t.deepEqual(
    before.body.items.map((i: { id: number }) => i.id),
    [b.id, a.id],
  );

  await freezeWeek(db(), await mainSite(), isoWeekMonday(week)!, new Date());
  // Votes removed after the close do not change the final ranking.
  await voidVotes(db(), { listingId: b.id, reason: 'late fraud finding' });
  const after = await board(week);
  t.is(after.status, 200);
  t.is(after.body.state, 'final');
  t.is(after.body.total, 2);
  const pastTheEnd = await api(env, 'GET', `/leaderboards/community-weekly?week=${week}&page=2`);
  t.deepEqual([pastTheEnd.body.state, pastTheEnd.body.items, pastTheEnd.body.total], ['final', [], 2]);
  t.is(after.body.week, week);
  t.deepEqual(
    after.body.items.map((i: { id: number; rank: number; score: number; votes_removed: number }) => [
      i.rank,
      i.id,
      i.score,
      i.votes_removed,
    ]),
    [
      [1, b.id, 3, 0],
      [2, a.id, 1, 0],
    ],
  );
});

test('weeks without launches are empty; long years have a W53', async (t) => {
  for (const week of ['2020-W53', '2026-W53', '2021-W01', '2030-W10']) {
    const res = await board(week);
    t.is(res.status, 200, week);
    t.is(res.body.week, week);
    t.is(res.body.week_start, isoWeekMonday(week));
    t.deepEqual(res.body.items, []);
  }
  t.is((await board('2020-W53')).body.week_start, '2020-12-28');
});

test('a bad week is a 400 naming the field', async (t) => {
  for (const week of [
    '2026-W54',
    '2025-W53',
    '2026-W00',
    '2026W48',
    '2026-w48',
    '2026-W4',
    ' 2026-W48',
    '1999-W10',
    'next',
    '',
    '2026-W48;drop',
  ]) {
    const res = await board(week);
    t.is(res.status, 400, week);
    t.is(res.headers.get('content-type'), 'application/problem+json', week);
    t.is(res.body.code, 'validation_failed', week);
    t.deepEqual(
      res.body.errors.map((e: { path: string }) => e.path),
      ['week'],
      week,
    );
  }
  t.is((await api(env, 'GET', '/leaderboards/community-weekly?week=2026-W10&week=2026-W11')).status, 400);
});

test('the MCP tool takes the same week and refuses the same bad one', async (t) => {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${env.baseUrl}/mcp`)));
  try {
    const good = (await client.callTool({ name: 'get_community_leaderboard', arguments: { week: '2026-W53' } })) as CallToolResult;
    t.falsy(good.isError);
    t.deepEqual(good.structuredContent, (await board('2026-W53')).body);
    const bad = (await client.callTool({ name: 'get_community_leaderboard', arguments: { week: '2026-W54' } })) as CallToolResult;
    t.true(bad.isError);
    const problem = JSON.parse((bad.content[0] as { text: string }).text);
    t.is(problem.code, 'validation_failed');
    t.deepEqual(
      problem.errors.map((e: { path: string }) => e.path),
      ['week'],
    );
    const tools = await client.listTools();
    // The tools about listing votes read the public audit (get_vote_audit) or let the site team review
    // the ring detectors' flags (keep or void a vote already cast); none casts a vote on a listing
    // (upvoting a comment, vote_comment, is a tool: it does not rank listings).
    t.deepEqual(
      tools.tools
        .filter((tool) => /vote/.test(tool.name) && !/_comment$/.test(tool.name))
        .map((tool) => [tool.name, tool.annotations?.readOnlyHint]),
      [
        ['get_vote_audit', true],
        ['staff_list_vote_flags', true],
        ['staff_decide_vote_flag', false],
      ],
      'no tool casts listing votes',
    );
    t.deepEqual(
      tools.tools.filter((tool) => /vote_comment$/.test(tool.name)).map((tool) => tool.name),
      ['vote_comment', 'unvote_comment'],
    );
  } finally {
    await client.close();
  }
});
