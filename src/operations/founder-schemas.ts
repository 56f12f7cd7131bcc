import { z } from 'zod';
import { Id } from './schemas.ts';

/** Founder texts follow the shared field rules (domain/fields.ts). */
export { oneLine as OneLine, plainText as PlainText } from '../domain/fields.ts';

export const MissingItem = z.object({
  code: z.string().describe('Stable code of the unmet rule, e.g. photo_missing, story_too_few_words'),
  reason: z.string().describe('What to do, in words'),
  url: z.string().describe('The page that fixes it'),
  operation: z.string().describe('The operation (REST and MCP tool) that fixes it'),
});

export const InterviewAnswer = z.object({
  question_id: Id,
  question: z.string(),
  position: z.int(),
  answer: z.string(),
  updated_at: z.string(),
});
