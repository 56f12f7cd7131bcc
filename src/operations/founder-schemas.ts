import { z } from 'zod';
import { Id } from './schemas.ts';

/**
 * Plain text as people type it: line breaks and tabs allowed, other control characters refused
 * (PostgreSQL cannot store NUL, and the rest only ever hide text from a reader).
 */
export const PlainText = (max: number) =>
  z
    .string()
    .max(max)
    .refine((v) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(v), 'Must not contain control characters');

/** One line of plain text (titles, names). */
export const OneLine = (max: number) =>
  z
    .string()
    .max(max)
    .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), 'Must be one line without control characters');

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
