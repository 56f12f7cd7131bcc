import test from 'ava';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';

let env: TestEnv;
let questions: { id: number; position: number; text: string }[];
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  questions = (await api(env, 'GET', '/interview-questions')).body.items;
});
test.after.always(() => env?.close());

const answersOf = (userId: number) =>
  env.services.db('interview_answers').where({ user_id: userId }).orderBy('question_id').select('question_id', 'answer');

test('answers are saved per question, replaced on a new answer, and shown on the profile', async (t) => {
  t.true(questions.length >= 3);
  const owner = await env.user();
  const [q1, q2, q3] = questions as [(typeof questions)[0], (typeof questions)[0], (typeof questions)[0]];
  const res = await api(env, 'PUT', '/me/interview', {
    key: owner.key,
    body: {
      answers: [
        { question_id: q3.id, answer: '  Third.  ' },
        { question_id: q1.id, answer: 'First.\nTwo lines.' },
      ],
    },
  });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.deepEqual(
    res.body.answers.map((a: { question_id: number; answer: string }) => [a.question_id, a.answer]),
    [
      [q1.id, 'First.\nTwo lines.'],
      [q3.id, 'Third.'],
    ],
  );
  t.is(res.body.answers[0].question, q1.text);

  const again = await api(env, 'PUT', '/me/interview', {
    key: owner.key,
    body: {
      answers: [
        { question_id: q1.id, answer: 'First, rewritten.' },
        { question_id: q2.id, answer: 'Second.' },
      ],
    },
  });
  t.is(again.status, 200);
  t.deepEqual(
    again.body.answers.map((a: { answer: string }) => a.answer),
    ['First, rewritten.', 'Second.', 'Third.'],
  );
  t.is((await answersOf(owner.userId)).length, 3);

  const profile = await api(env, 'GET', '/me/founder-profile', { key: owner.key });
  t.deepEqual(profile.body.interview, again.body.answers);
  // Answers alone do not make a founder profile.
  t.deepEqual(
    profile.body.missing.map((m: { code: string }) => m.code),
    ['founder_profile_missing'],
  );
});

test('bad answers are a 400 naming the element, and nothing is saved', async (t) => {
  const owner = await env.user();
  const [q1, q2] = questions as [(typeof questions)[0], (typeof questions)[0]];
  const db = env.services.db;
  const inactive = (
    await db('interview_questions')
      .insert({ site_id: (await db('sites').where({ key: 'main' }).first('id'))!.id, position: 99, text: 'Retired?', active: false })
      .returning('id')
  )[0].id;
  const makersQuestion = (
    await db('interview_questions')
      .join('sites', 'sites.id', 'interview_questions.site_id')
      .where('sites.key', 'makers')
      .first('interview_questions.id')
  ).id;
  const good = { question_id: q1.id, answer: 'Fine.' };
  // Well-formed answers to questions that cannot be answered here: 422, documented as such.
  const refused: [unknown, string][] = [
    [{ answers: [good, { question_id: 2_000_000_000, answer: 'Unknown.' }] }, 'answers.1.question_id'],
    [{ answers: [good, { question_id: inactive, answer: 'Inactive.' }] }, 'answers.1.question_id'],
    [{ answers: [good, { question_id: makersQuestion, answer: 'Another site.' }] }, 'answers.1.question_id'],
    [{ answers: [good, { question_id: q2.id, answer: 'Ok.' }, { question_id: q1.id, answer: 'Twice.' }] }, 'answers.2.question_id'],
  ];
  for (const [body, path] of refused) {
    const res = await api(env, 'PUT', '/me/interview', { key: owner.key, body });
    t.is(res.status, 422, JSON.stringify(body).slice(0, 100));
    t.is(res.body.code, 'invalid_answers');
    t.deepEqual(
      res.body.errors.map((e: { path: string }) => e.path),
      [path],
    );
  }
  const cases: [unknown, string][] = [
    [{ answers: [good, { question_id: q2.id, answer: '   ' }] }, 'answers.1.answer'],
    [{ answers: [good, { question_id: q2.id, answer: '' }] }, 'answers.1.answer'],
    [{ answers: [good, { question_id: q2.id, answer: 'x'.repeat(2001) }] }, 'answers.1.answer'],
    [{ answers: [good, { question_id: q2.id, answer: 'nul\u0000' }] }, 'answers.1.answer'],
    [{ answers: [good, { question_id: q2.id }] }, 'answers.1.answer'],
    [{ answers: [good, { question_id: 'one', answer: 'x' }] }, 'answers.1.question_id'],
    [{ answers: [good, { question_id: 0, answer: 'x' }] }, 'answers.1.question_id'],
    [{ answers: [good, { question_id: q2.id, answer: 'x', extra: true }] }, 'answers.1.extra'],
    [{ answers: [good, 'just text'] }, 'answers.1'],
    [{ answers: [] }, 'answers'],
    [{ answers: Array.from({ length: 51 }, () => good) }, 'answers'],
    [{ answers: good }, 'answers'],
    [{}, 'answers'],
    [{ answers: [good], more: 1 }, 'more'],
  ];
  for (const [body, path] of cases) {
    const res = await api(env, 'PUT', '/me/interview', { key: owner.key, body });
    t.is(res.status, 400, JSON.stringify(body).slice(0, 100));
    t.is(res.body.code, 'validation_failed');
    t.true(
      res.body.errors.some((e: { path: string }) => e.path === path),
      `${path}: ${JSON.stringify(res.body.errors)}`,
    );
  }
  t.deepEqual(await answersOf(owner.userId), []);
});

test('questions are those of the site the request came to', async (t) => {
  const owner = await env.user();
  const makers = { host: 'makers.localhost' };
  const makersQuestions = (await api(env, 'GET', '/interview-questions', { headers: makers })).body.items;
  t.notDeepEqual(
    makersQuestions.map((q: { id: number }) => q.id),
    questions.map((q) => q.id),
  );
  const res = await api(env, 'PUT', '/me/interview', {
    key: owner.key,
    headers: makers,
    body: { answers: [{ question_id: makersQuestions[0].id, answer: 'On makers.' }] },
  });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.is(res.body.answers.length, 1);
  t.deepEqual((await api(env, 'GET', '/me/founder-profile', { key: owner.key })).body.interview, []);
  t.is((await api(env, 'GET', '/me/founder-profile', { key: owner.key, headers: makers })).body.interview.length, 1);
});

test('answer_interview needs listings:write; idempotent retries replay', async (t) => {
  const readOnly = await env.user(['account:read']);
  const body = { answers: [{ question_id: questions[0]!.id, answer: 'Hi.' }] };
  t.is((await api(env, 'PUT', '/me/interview', { key: readOnly.key, body })).status, 403);
  t.is((await api(env, 'PUT', '/me/interview', { body })).status, 401);
  t.deepEqual(await answersOf(readOnly.userId), []);
  const owner = await env.user();
  const headers = { 'Idempotency-Key': 'interview-1' };
  const first = await api(env, 'PUT', '/me/interview', { key: owner.key, body, headers });
  const second = await api(env, 'PUT', '/me/interview', { key: owner.key, body, headers });
  t.is(second.headers.get('idempotent-replayed'), 'true');
  t.deepEqual(second.body, first.body);
});
