import type { Db } from '../../db/knex.ts';

export interface InterviewQuestion {
  id: number;
  position: number;
  text: string;
}

/** The site's active founder-interview questions in their order. */
export async function listInterviewQuestions(db: Db, siteId: number): Promise<InterviewQuestion[]> {
  return db('interview_questions').where({ site_id: siteId, active: true }).orderBy(['position', 'id']).select('id', 'position', 'text');
}
