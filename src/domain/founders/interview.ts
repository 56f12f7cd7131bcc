import type { Db } from '../../db/knex.ts';
import { appError, type FieldError } from '../../errors/errors.ts';

export interface InterviewAnswerInput {
  question_id: number;
  answer: string;
}

/** One answered question as owners and visitors see it. */
export interface InterviewAnswerView {
  question_id: number;
  question: string;
  position: number;
  answer: string;
  updated_at: string;
}

/**
 * Saves answers of one user, all or nothing. Each question must be an active question of the
 * site the request came to (what list_interview_questions shows there) and appear once; errors
 * name the element (`answers.2.question_id`). Answers replace earlier answers to the same question.
 */
export async function saveInterviewAnswers(db: Db, userId: number, siteId: number, answers: InterviewAnswerInput[]): Promise<void> {
  const ids = answers.map((a) => a.question_id);
  const active = new Set<number>(
    await db('interview_questions').whereIn('id', ids).andWhere({ site_id: siteId, active: true }).pluck('id'),
  );
  const errors: FieldError[] = [];
  const seen = new Map<number, number>();
  answers.forEach((a, i) => {
    const path = `answers.${i}.question_id`;
    if (!active.has(a.question_id)) {
      errors.push({ path, message: `There is no active interview question ${a.question_id}; see list_interview_questions` });
    } else if (seen.has(a.question_id)) {
      errors.push({ path, message: `Question ${a.question_id} is already answered at answers.${seen.get(a.question_id)}` });
    } else {
      seen.set(a.question_id, i);
    }
  });
  if (errors.length) throw appError('invalid_answers', 'Some answers are to questions that cannot be answered here.', { errors });
  // One statement: every answer is saved or none is.
  await db('interview_answers')
    .insert(answers.map((a) => ({ user_id: userId, question_id: a.question_id, answer: a.answer })))
    .onConflict(['user_id', 'question_id'])
    .merge({ answer: db.raw('excluded.answer'), updated_at: db.fn.now() });
}

/** A user's answers to active questions (of one site when given), in question order. */
export async function interviewAnswers(db: Db, userId: number, siteId?: number): Promise<InterviewAnswerView[]> {
  const query = db('interview_answers as a')
    .join('interview_questions as q', 'q.id', 'a.question_id')
    .where({ 'a.user_id': userId, 'q.active': true })
    .orderBy([{ column: 'q.site_id' }, { column: 'q.position' }, { column: 'q.id' }])
    .select('q.id as question_id', 'q.text as question', 'q.position', 'a.answer', 'a.updated_at');
  if (siteId !== undefined) query.andWhere('q.site_id', siteId);
  const rows: (Omit<InterviewAnswerView, 'updated_at'> & { updated_at: Date })[] = await query;
  return rows.map((r) => ({ ...r, updated_at: r.updated_at.toISOString() }));
}
