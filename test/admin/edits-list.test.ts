import test from 'ava';
import { admin, adminInProcess } from '../helpers/admin.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';

// The first run goes through main.ts (a real process, as an operator runs it); the rest run the
// same command in this process.

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

test.serial('edits:list on an empty history says so', async (t) => {
  const res = await admin(env, 'edits:list');
  t.is(res.code, 0, res.stderr);
  t.is(res.stdout.trim(), 'No edits.');
});

test.serial('edits:list prints recent edits newest first with a before/after diff, per site', async (t) => {
  const owner = await env.user();
  const url = 'https://www.difftest.com/';
  const main = await insertLiveListing(env.services.db, { name: 'Diff Main', url, ownerId: owner.userId, headline: 'Old headline' });
  const makers = await insertLiveListing(env.services.db, { name: 'Diff Makers', url, site: 'makers', ownerId: owner.userId });
  const edit = await api(env, 'PATCH', `/me/listings/${main}`, {
    key: owner.key,
    body: {
      fields: { headline: 'New headline', founded_year: 2021 },
      socials: { github: 'https://github.com/difftest' },
      apply_to: ['makers'],
    },
  });
  t.is(edit.status, 200, JSON.stringify(edit.body));
  await api(env, 'POST', `/me/listings/${main}/milestones`, { key: owner.key, body: { date: '2025-01-01', title: 'First customer' } });

  const all = await adminInProcess(env, 'edits:list');
  t.is(all.code, 0, all.stderr);
  const blocks = all.stdout.trim().split('\n\n');
  t.is(blocks.length, 3);
  t.regex(blocks[0]!, /\[main\] listing \d+ "Diff Main" \(diff-main\)\n {2}add_milestone by owner-/);
  t.regex(blocks[0]!, /milestone:\n {4}- \(empty\)\n {4}\+ \{.*"title":"First customer"/);
  t.regex(blocks[1]!, new RegExp(`\\[makers\\] listing ${makers} "Diff Makers".*\\n.*via apply_to from listing ${main}`));
  t.regex(blocks[1]!, /headline:\n {4}- \(empty\)\n {4}\+ New headline/);
  t.notRegex(blocks[1]!, /founded_year|socials/, 'only the site fields travelled');
  t.regex(blocks[2]!, /headline:\n {4}- Old headline\n {4}\+ New headline/);
  t.regex(blocks[2]!, /founded_year:\n {4}- \(empty\)\n {4}\+ 2021/);
  t.regex(blocks[2]!, /socials:\n {4}- \{\}\n {4}\+ \{"github":"https:\/\/github.com\/difftest"\}/);
  t.regex(blocks[2]!, /^#\d+ {2}\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);

  const makersOnly = await adminInProcess(env, 'edits:list', '--site', 'makers');
  t.is(makersOnly.stdout.trim().split('\n\n').length, 1);
  t.regex(makersOnly.stdout, /Diff Makers/);
  const latest = await adminInProcess(env, 'edits:list', '--limit', '1');
  t.regex(latest.stdout, /add_milestone/);
  t.is(latest.stdout.trim().split('\n\n').length, 1);
});

test.serial('bad edits:list options exit non-zero with a message', async (t) => {
  for (const args of [['--site', 'nowhere'], ['--limit', '0'], ['--limit', 'ten'], ['--limit', '1001'], ['--limit', '-3'], ['--bogus']]) {
    const res = await adminInProcess(env, 'edits:list', ...args);
    t.not(res.code, 0, args.join(' '));
    t.true(res.stderr.trim().length > 0, args.join(' '));
    t.false(res.stderr.includes('    at '), `no stack trace for ${args.join(' ')}`);
  }
});
