import test from 'ava';
import { admin, adminInProcess } from '../helpers/admin.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

/** The same command in this process (spawning node costs seconds): exit code and what it printed. */
const adminHere = (...args: string[]) => adminInProcess(env, ...args);

const publicQuestions = async (host?: string) =>
  (await api(env, 'GET', '/interview-questions', host ? { headers: { host } } : {})).body.items as {
    id: number;
    position: number;
    text: string;
  }[];

test.serial('questions:add, questions:edit and questions:list change what list_interview_questions shows', async (t) => {
  const list = await adminHere('questions:list');
  t.is(list.code, 0, list.stderr);
  const seeded = await publicQuestions();
  t.true(seeded.every((q) => list.stdout.includes(`${q.id}\tmain\t${q.position}\tactive\t${q.text}`)));

  const added = await admin(env, 'questions:add', '--site', 'makers', '--text', 'What did you ship this week?');
  t.is(added.code, 0, added.stderr);
  const id = Number(/added question (\d+)/.exec(added.stdout)![1]);
  const makers = await publicQuestions('makers.localhost');
  t.deepEqual(makers.at(-1), { id, position: makers.length, text: 'What did you ship this week?' });
  t.false(
    (await publicQuestions()).some((q) => q.id === id),
    'only on its own site',
  );

  const first = await adminHere('questions:add', '--site', 'main', '--text', 'Why now?', '--position', '1');
  const firstId = Number(/added question (\d+)/.exec(first.stdout)![1]);
  t.is((await publicQuestions()).find((q) => q.position === 1 && q.id === firstId)?.text, 'Why now?');

  const edited = await adminHere('questions:edit', '--id', String(id), '--text', 'What did you ship?');
  t.is(edited.code, 0, edited.stderr);
  t.is((await publicQuestions('makers.localhost')).find((q) => q.id === id)?.text, 'What did you ship?');

  const owner = await env.user();
  const answer = () =>
    api(env, 'PUT', '/me/interview', {
      key: owner.key,
      headers: { host: 'makers.localhost' },
      body: { answers: [{ question_id: id, answer: 'A CLI.' }] },
    });
  t.is((await answer()).status, 200);
  t.is((await adminHere('questions:edit', '--id', String(id), '--active', 'false')).code, 0);
  t.false((await publicQuestions('makers.localhost')).some((q) => q.id === id));
  const refused = await answer();
  t.is(refused.status, 422);
  t.is(refused.body.code, 'invalid_answers');
  t.is(refused.body.errors[0].path, 'answers.0.question_id');
  t.regex((await adminHere('questions:list')).stdout, new RegExp(`${id}\\tmakers\\t\\d+\\tinactive\\tWhat did you ship\\?`));
  t.is((await adminHere('questions:edit', '--id', String(id), '--active', 'true')).code, 0);
  t.true((await publicQuestions('makers.localhost')).some((q) => q.id === id));
});

test.serial('bad questions:* input exits non-zero with a message and changes nothing', async (t) => {
  const before = await env.services.db('interview_questions').orderBy('id').select('*');
  const [question] = before;
  const cases = [
    ['questions:add', '--text', 'No site'],
    ['questions:add', '--site', 'main'],
    ['questions:add', '--site', 'nowhere', '--text', 'Unknown site'],
    ['questions:add', '--site', 'main', '--text', '   '],
    ['questions:add', '--site', 'main', '--text', 'x'.repeat(501)],
    ['questions:add', '--site', 'main', '--text', 'Bad position', '--position', 'first'],
    ['questions:add', '--site', 'main', '--text', 'Bad position', '--position', '0'],
    ['questions:edit', '--text', 'No id'],
    ['questions:edit', '--id', 'abc', '--text', 'Bad id'],
    ['questions:edit', '--id', '999999', '--text', 'Unknown id'],
    ['questions:edit', '--id', String(question.id)],
    ['questions:edit', '--id', String(question.id), '--active', 'maybe'],
    ['questions:edit', '--id', String(question.id), '--text', ''],
  ];
  for (const args of cases) {
    const res = await adminHere(...args);
    t.not(res.code, 0, args.join(' '));
    t.true(res.stderr.trim().length > 0, args.join(' '));
    t.false(res.stderr.includes('    at '), `no stack trace for ${args.join(' ')}`);
  }
  // One bad call through the real process: exit code 1, a message, no stack trace.
  const real = await admin(env, 'questions:add', '--site', 'nowhere', '--text', 'Unknown site');
  t.is(real.code, 1);
  t.regex(real.stderr, /nowhere/);
  t.false(real.stderr.includes('    at '));
  t.deepEqual(await env.services.db('interview_questions').orderBy('id').select('*'), before);
});
