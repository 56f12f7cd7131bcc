import type { Db } from '../db/knex.ts';
import {
  addInterviewQuestion,
  allInterviewQuestions,
  editInterviewQuestion,
  type AdminInterviewQuestion,
} from '../domain/catalog/interview-questions-admin.ts';

export const QUESTIONS_USAGE = `  npm run admin -- questions:list
  npm run admin -- questions:add --site K --text T [--position N]
  npm run admin -- questions:edit --id N [--text T] [--active true|false] [--position N]`;

/** parseArgs options of the questions:* commands. */
export const QUESTION_OPTIONS = {
  site: { type: 'string' },
  text: { type: 'string' },
  position: { type: 'string' },
  id: { type: 'string' },
  active: { type: 'string' },
} as const;

export interface QuestionFlags {
  site?: string;
  text?: string;
  position?: string;
  id?: string;
  active?: string;
}

/** A bad flag value; the CLI prints the message and exits 1. */
export class QuestionUsageError extends Error {}

const line = (q: AdminInterviewQuestion) => `${q.id}\t${q.site}\t${q.position}\t${q.active ? 'active' : 'inactive'}\t${q.text}`;

/** Runs a `questions:*` command; returns null for other commands. */
export async function runQuestionCommand(db: Db, command: string | undefined, flags: QuestionFlags): Promise<number | null> {
  switch (command) {
    case 'questions:list':
      console.log('id\tsite\tposition\tstatus\ttext');
      for (const q of await allInterviewQuestions(db)) console.log(line(q));
      return 0;
    case 'questions:add': {
      if (!flags.site || flags.text === undefined) throw new QuestionUsageError(`--site and --text are required.\n${QUESTIONS_USAGE}`);
      const q = await addInterviewQuestion(db, { site: flags.site, text: flags.text, position: optionalInt(flags.position, '--position') });
      console.log(`added question ${q.id}`);
      console.log(line(q));
      return 0;
    }
    case 'questions:edit': {
      const id = optionalInt(flags.id, '--id');
      if (id === undefined) throw new QuestionUsageError(`--id is required.\n${QUESTIONS_USAGE}`);
      const q = await editInterviewQuestion(db, id, {
        text: flags.text,
        active: optionalBool(flags.active, '--active'),
        position: optionalInt(flags.position, '--position'),
      });
      console.log(`edited question ${q.id}`);
      console.log(line(q));
      return 0;
    }
    default:
      return null;
  }
}

function optionalInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d{0,8}$/.test(value)) throw new QuestionUsageError(`${flag} must be a positive whole number.`);
  return Number(value);
}

function optionalBool(value: string | undefined, flag: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw new QuestionUsageError(`${flag} must be true or false.`);
  return value === 'true';
}
