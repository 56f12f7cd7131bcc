import type { Db } from '../../db/knex.ts';
import { badRequest, notFound } from '../../errors/errors.ts';
import { isOneLine } from '../fields.ts';
import { readSiteByKey } from '../sites/sites.ts';

/** A question as the site team manages it (inactive ones included). */
export interface AdminInterviewQuestion {
  id: number;
  site: string;
  position: number;
  text: string;
  active: boolean;
}

const QUESTION_MAX = 500;

function checkedText(text: string): string {
  const trimmed = text.trim();
  if (!trimmed || trimmed.length > QUESTION_MAX || !isOneLine(trimmed)) {
    throw badRequest('invalid_question', `The question text must be one line of 1 to ${QUESTION_MAX} characters.`);
  }
  return trimmed;
}

/** Every question of every site, by site and position. */
export async function allInterviewQuestions(db: Db): Promise<AdminInterviewQuestion[]> {
  return db('interview_questions as q')
    .join('sites as s', 's.id', 'q.site_id')
    .orderBy([{ column: 's.id' }, { column: 'q.position' }, { column: 'q.id' }])
    .select('q.id', 's.key as site', 'q.position', 'q.text', 'q.active');
}

/** Adds an active question to a site, last unless a position is given. */
export async function addInterviewQuestion(
  db: Db,
  input: { site: string; text: string; position?: number },
): Promise<AdminInterviewQuestion> {
  const site = await readSiteByKey(db, input.site);
  if (!site) throw badRequest('unknown_site', `There is no site with the key "${input.site}".`);
  const text = checkedText(input.text);
  const [{ last }] = await db('interview_questions').where({ site_id: site.id }).max({ last: 'position' });
  const [row] = await db('interview_questions')
    .insert({ site_id: site.id, text, position: input.position ?? (last ?? 0) + 1 })
    .returning(['id', 'position', 'text', 'active']);
  return { ...row, site: site.key };
}

/** Changes a question's text and/or whether it is asked. Answers to it are kept either way. */
export async function editInterviewQuestion(
  db: Db,
  id: number,
  changes: { text?: string; active?: boolean; position?: number },
): Promise<AdminInterviewQuestion> {
  const values: Record<string, unknown> = {};
  if (changes.text !== undefined) values.text = checkedText(changes.text);
  if (changes.active !== undefined) values.active = changes.active;
  if (changes.position !== undefined) values.position = changes.position;
  if (Object.keys(values).length === 0) throw badRequest('nothing_to_change', 'Give --text, --active or --position.');
  const [row] = await db('interview_questions')
    .where({ id })
    .update({ ...values, updated_at: db.fn.now() })
    .returning('id');
  if (!row) throw notFound(`Interview question ${id}`);
  return (await allInterviewQuestions(db)).find((q) => q.id === id)!;
}
