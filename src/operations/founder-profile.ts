import { z } from 'zod';
import { interviewAnswers, saveInterviewAnswers } from '../domain/founders/interview.ts';
import { PHOTO, PHOTO_LIMITS, photoTooLarge, processPhoto, saveFounderPhoto } from '../domain/founders/photos.ts';
import { decodeImageBase64 } from '../domain/media/images.ts';
import { founderProfileView, updateFounderProfile } from '../domain/founders/profiles.ts';
import { RULES } from '../domain/founders/publish-rules.ts';
import { wakeProfileWaiters } from '../domain/launches/owner-actions.ts';
import { InterviewAnswer, MissingItem, OneLine, PlainText } from './founder-schemas.ts';
import { callerId, defineOperation, type OperationContext } from './operation.ts';
import { HttpsUrl, Id, ImageBase64 } from './schemas.ts';

const FounderProfile = z.object({
  user_id: Id,
  display_name: z.string().nullable(),
  bio: z.string().nullable(),
  links: z.array(z.string()),
  photo_url: z.string().nullable().describe('The stored 512×512 WebP; the URL changes when the photo does'),
  complete: z.boolean(),
  missing: z.array(MissingItem).describe('What keeps the profile from being complete'),
  interview: z.array(InterviewAnswer).describe("Your answers to this site's interview questions"),
  public_url: z.string().describe('Your public founder page (shown once the profile is complete)'),
  updated_at: z.string().nullable(),
});

const COMPLETE_TEXT = `Complete = display name, photo, a bio of at least ${RULES.bioMinWords} words and at least ${RULES.minLinks} link.`;

const profileOf = (ctx: OperationContext) => founderProfileView(ctx.db, ctx.config.baseUrl, callerId(ctx), ctx.site.id);

export const getFounderProfileOp = defineOperation({
  name: 'get_founder_profile',
  summary: 'Your founder profile and what keeps it from being complete',
  description: COMPLETE_TEXT,
  method: 'GET',
  path: '/me/founder-profile',
  scope: 'account:read',
  idempotent: false,
  readOnly: true,
  tags: ['founder'],
  input: z.object({}),
  output: FounderProfile,
  handler: (_input, ctx) => profileOf(ctx),
});

export const updateFounderProfileOp = defineOperation({
  name: 'update_founder_profile',
  summary: 'Edit your founder profile',
  description: `Only the fields sent change; an empty string clears a text; \`links\` replaces all links. ${COMPLETE_TEXT}`,
  method: 'PATCH',
  path: '/me/founder-profile',
  scope: 'listings:write',
  idempotent: true,
  readOnly: false,
  tags: ['founder'],
  input: z
    .object({
      display_name: OneLine(80).optional().describe('Your name as readers see it'),
      bio: PlainText(2000).optional().describe(`About you, at least ${RULES.bioMinWords} words for a complete profile`),
      links: z
        .array(HttpsUrl)
        .max(5)
        .superRefine((links, issues) => {
          links.forEach((link, i) => {
            if (links.indexOf(link) !== i)
              issues.addIssue({ code: 'custom', path: [i], message: `Same link as links.${links.indexOf(link)}` });
          });
        })
        .meta({ uniqueItems: true }) // the refinement above, stated in the document
        .optional()
        .describe('Up to 5 https links (your site, social profiles); replaces all'),
    })
    .strict(),
  output: FounderProfile,
  async handler(input, ctx) {
    await updateFounderProfile(ctx.db, callerId(ctx), input);
    await wakeProfileWaiters(ctx, callerId(ctx));
    return profileOf(ctx);
  },
});

export const uploadFounderPhotoOp = defineOperation({
  name: 'upload_founder_photo',
  summary: 'Upload your founder photo',
  description:
    `The image type and size are checked by content, not by name or claimed type: JPEG, PNG, WebP, GIF or AVIF, at most ${PHOTO_LIMITS.maxBytes / 1024 / 1024} MB ` +
    `(413 image_too_large), at most ${PHOTO_LIMITS.maxPixels / 1e6} megapixels, at least ${PHOTO_LIMITS.minSide} px a side; anything else is 400 unsupported_image. ` +
    `Stored as a ${PHOTO_LIMITS.outputSide}×${PHOTO_LIMITS.outputSide} WebP crop without metadata, replacing the previous photo.`,
  method: 'PUT',
  path: '/me/founder-profile/photo',
  bodyLimit: { bytes: PHOTO_LIMITS.maxJsonBytes, tooLarge: photoTooLarge },
  scope: 'listings:write',
  idempotent: true,
  errorCodes: ['unsupported_image', 'image_too_many_pixels', 'image_too_small'],
  readOnly: false,
  destructive: true,
  tags: ['founder'],
  input: z.object({ image_base64: ImageBase64 }).strict(),
  output: FounderProfile,
  async handler(input, ctx) {
    const photo = await processPhoto(decodeImageBase64(input.image_base64, PHOTO));
    await saveFounderPhoto(ctx.db, callerId(ctx), photo);
    await wakeProfileWaiters(ctx, callerId(ctx));
    return profileOf(ctx);
  },
});

export const answerInterviewOp = defineOperation({
  name: 'answer_interview',
  summary: 'Answer founder interview questions',
  description:
    "Saves answers to this site's active questions (see list_interview_questions) on your founder profile; " +
    'an answer replaces your earlier answer to the same question. All answers are saved or none: an answer to an unknown, ' +
    "inactive or other site's question, or a second answer to the same question, is 422 invalid_answers naming each.",
  method: 'PUT',
  path: '/me/interview',
  scope: 'listings:write',
  idempotent: true,
  errorCodes: ['invalid_answers'],
  readOnly: false,
  tags: ['founder'],
  input: z
    .object({
      answers: z
        .array(
          z
            .object({
              question_id: Id,
              answer: PlainText(2000).trim().min(1, 'Must not be empty').describe('Your answer, at most 2000 characters'),
            })
            .strict(),
        )
        .min(1)
        .max(50),
    })
    .strict(),
  output: z.object({ answers: z.array(InterviewAnswer).describe("All your answers to this site's questions") }),
  async handler(input, ctx) {
    await saveInterviewAnswers(ctx.db, callerId(ctx), ctx.site.id, input.answers);
    return { answers: await interviewAnswers(ctx.db, callerId(ctx), ctx.site.id) };
  },
});

export const founderProfileOperations = [getFounderProfileOp, updateFounderProfileOp, uploadFounderPhotoOp, answerInterviewOp];
