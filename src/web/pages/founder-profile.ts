import type { Context } from 'koa';
import type { z } from 'zod';
import type { InterviewQuestion } from '../../domain/catalog/interview-questions.ts';
import { AppError, type FieldError, payloadTooLarge } from '../../errors/errors.ts';
import { answerInterviewOp, getFounderProfileOp, updateFounderProfileOp, uploadFounderPhotoOp } from '../../operations/founder-profile.ts';
import { listMyListingsOp } from '../../operations/listings.ts';
import { listInterviewQuestionsOp } from '../../operations/public.ts';
import { PHOTO_LIMITS, RULES } from '../../operations/read-models/founders.ts';
import { paths } from '../../lib/paths.ts';
import { errorSummary, field, postForm } from '../components.ts';
import { csrfToken } from '../csrf.ts';
import { founderPhoto, missingList } from '../content.ts';
import { formBody, formString, type FieldMessages } from '../forms.ts';
import { html } from '../html.ts';
import type { UploadRoute } from '../multipart.ts';
import { formMessages, refusal, textArea } from '../owner-forms.ts';
import { redirectWithFlash, takeFlash } from '../flash.ts';
import { invokeForPage, maxLengthOf } from '../invoke.ts';
import { renderPage } from '../render.ts';
import { requireUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';

const PAGE = paths.founderProfile;
const PHOTO_FORM = `${PAGE}/photo`;
const INTERVIEW_FORM = `${PAGE}/interview`;

/**
 * The photo form is multipart; the router parses it with this limit (the photo plus the form
 * around it). Too large a photo goes back to the form with the message, like any refused photo.
 */
export const founderPhotoUpload = (services: WebServices): Record<string, UploadRoute> => ({
  [PHOTO_FORM]: {
    maxBytes: PHOTO_LIMITS.maxBytes + 64 * 1024,
    tooLarge: payloadTooLarge(PHOTO_LIMITS.maxBytes, 'image_too_large', 'The photo'),
    onTooLarge: (ctx, error) => photoRefused(ctx, services, { photo: error.message }),
  },
});

/** A refused photo: back to the form (never left on the POST URL) with the message beside the field. */
const photoRefused = (ctx: Context, services: WebServices, errors: FieldMessages) =>
  redirectWithFlash(ctx, services, `${PAGE}#photo`, { form: 'photo', errors });

/** What get_founder_profile answers: the profile, what keeps it from being complete, the interview answers. */
type FounderProfileView = z.output<typeof getFounderProfileOp.output>;

const NOTICES: Record<string, string> = {
  'profile-saved': 'Your founder profile is saved.',
  'photo-saved': 'Your photo is saved.',
  'interview-saved': 'Your interview answers are saved.',
};

type FormName = 'profile' | 'photo' | 'interview';

interface ProfileView {
  status: number;
  form?: FormName;
  errors?: FieldMessages;
  /** What was typed into the form that failed, shown again. */
  values?: Record<string, string>;
}

/** The owner's founder profile: name, bio, links, photo upload, interview answers, what is missing. */
export const founderProfilePages: PageRoutes = (router, services) => {
  router.get(PAGE, requireUser(services), async function showFounderProfile(ctx) {
    const flash = takeFlash(ctx, services);
    await profilePage(ctx, services, { status: 200, form: flash?.form as FormName | undefined, errors: flash?.errors });
  });

  router.post(PAGE, requireUser(services), async function saveFounderProfile(ctx) {
    const body = formBody(ctx);
    const values = { display_name: formString(body, 'display_name'), bio: formString(body, 'bio'), links: formString(body, 'links') };
    const links = values.links
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean);
    try {
      await invokeForPage(ctx, services, updateFounderProfileOp, { ...values, links });
    } catch (err) {
      return profilePage(ctx, services, { form: 'profile', values, ...refusal(err, 'form', { links: 'Link' }) });
    }
    seeOther(ctx, 'profile-saved');
  });

  router.post(PHOTO_FORM, requireUser(services), async function uploadPhoto(ctx) {
    const upload = ctx.state.uploads?.get('photo');
    if (!upload?.bytes.length) return photoRefused(ctx, services, { photo: 'Choose a photo to upload.' });
    try {
      // The form's file is the API's image_base64: the same checks by content (type, size, pixels).
      await invokeForPage(ctx, services, uploadFounderPhotoOp, { image_base64: upload.bytes.toString('base64') });
    } catch (err) {
      return photoRefused(ctx, services, refusal(err, 'photo').errors);
    }
    seeOther(ctx, 'photo-saved', '#photo');
  });

  router.post(INTERVIEW_FORM, requireUser(services), async function saveInterview(ctx) {
    const body = formBody(ctx);
    const questions = await interviewQuestions(ctx, services);
    const values = Object.fromEntries(questions.map((q) => [answerField(q), formString(body, answerField(q))]));
    const answered = questions.filter((q) => values[answerField(q)]!.trim() !== '');
    const answers = answered.map((q) => ({ question_id: q.id, answer: values[answerField(q)]! }));
    const fail = (errors: FieldError[]) =>
      profilePage(ctx, services, { status: 400, form: 'interview', errors: interviewMessages(errors, answered), values });
    if (answers.length === 0) return fail([{ path: '(body)', message: 'Write at least one answer.' }]);
    try {
      await invokeForPage(ctx, services, answerInterviewOp, { answers });
    } catch (err) {
      if (err instanceof AppError && err.errors) return fail(err.errors);
      throw err;
    }
    seeOther(ctx, 'interview-saved', '#interview');
  });
};

const answerField = (q: InterviewQuestion) => `answer_${q.id}`;

/** `answers.2.answer` → the textarea of the third answered question. */
function interviewMessages(errors: FieldError[], answered: InterviewQuestion[]): FieldMessages {
  return formMessages(
    errors.map(({ path, message }) => {
      const index = /^answers\.(\d+)/.exec(path)?.[1];
      const question = index === undefined ? undefined : answered[Number(index)];
      return { path: question ? answerField(question) : path === 'answers' ? '(body)' : path, message };
    }),
  );
}

/** This site's active interview questions, in their order (list_interview_questions). */
async function interviewQuestions(ctx: Context, services: WebServices): Promise<InterviewQuestion[]> {
  return (await invokeForPage(ctx, services, listInterviewQuestionsOp, {})).items;
}

function seeOther(ctx: Context, notice: string, hash = '') {
  ctx.status = 303;
  ctx.redirect(`${PAGE}?notice=${notice}${hash}`);
}

async function profilePage(ctx: Context, services: WebServices, view: ProfileView) {
  const [profile, questions, listings, token] = await Promise.all([
    invokeForPage(ctx, services, getFounderProfileOp, {}),
    interviewQuestions(ctx, services),
    invokeForPage(ctx, services, listMyListingsOp, { page: 1, per_page: 100 }),
    csrfToken(ctx, services),
  ]);
  const errorsOf = (form: FormName) => (view.form === form ? view.errors : undefined);
  const notice = typeof ctx.query.notice === 'string' ? NOTICES[ctx.query.notice] : undefined;
  await renderPage(ctx, services, {
    title: 'Your founder profile',
    status: view.status,
    notice: view.status === 200 ? notice : undefined,
    main: html`${profileStatus(profile)}
<h2 id="profile">Profile</h2>
${errorSummary(errorsOf('profile'))}
${profileForm(profile, token, errorsOf('profile'), view.form === 'profile' ? view.values : undefined)}
<h2 id="photo">Photo</h2>
${errorSummary(errorsOf('photo'))}
${photoForm(profile, token, errorsOf('photo'))}
<h2 id="interview">Interview</h2>
${errorSummary(errorsOf('interview'))}
${interviewForm(profile, questions, token, errorsOf('interview'), view.form === 'interview' ? view.values : undefined)}
<h2 id="stories">Founder stories</h2>
${
  listings.items.length === 0
    ? html`<p>You have no listings yet.</p>`
    : html`<ul>${listings.items.map((l) => html`<li>${l.name}: <a href="${paths.storyEditor(l.id)}">edit the founder story</a></li>`)}</ul>`
}`,
  });
}

function profileStatus(profile: FounderProfileView) {
  if (profile.complete) {
    return html`<p class="status" data-status="complete">Your profile is complete: see <a href="${paths.founder(profile.user_id)}">your public founder page</a>.</p>`;
  }
  return html`<p class="status" data-status="incomplete">Your profile is not complete yet, so it has no public page and your stories cannot publish.</p>
${missingList(profile.missing, 'What your profile still needs')}`;
}

function profileForm(p: FounderProfileView, token: string, errors?: FieldMessages, values?: Record<string, string>) {
  return postForm(
    PAGE,
    token,
    html`${field({ name: 'display_name', label: 'Display name', value: values?.display_name ?? p.display_name ?? '', error: errors?.display_name, autocomplete: 'name', maxlength: maxLengthOf(updateFounderProfileOp, 'display_name') })}
${textArea({ name: 'bio', label: 'Bio', value: values?.bio ?? p.bio, error: errors?.bio, hint: `About you, in plain text: at least ${RULES.bioMinWords} words. A blank line starts a new paragraph.`, maxlength: maxLengthOf(updateFounderProfileOp, 'bio') })}
${textArea({ name: 'links', label: 'Links', value: values?.links ?? p.links.join('\n'), error: errors?.links, hint: 'Up to 5 https links (your site, social profiles), one per line.', rows: 3 })}
<button type="submit">Save profile</button>`,
  );
}

function photoForm(p: FounderProfileView, token: string, errors?: FieldMessages) {
  const limits = `JPEG, PNG, WebP, GIF or AVIF, at most ${PHOTO_LIMITS.maxBytes / 1024 / 1024} MB, at least ${PHOTO_LIMITS.minSide} pixels a side. We crop it to a square.`;
  return html`${p.photo_url ? founderPhoto(new URL(p.photo_url).pathname + new URL(p.photo_url).search, p.display_name ?? 'you', 128) : html`<p>No photo yet.</p>`}
<form method="post" action="${PHOTO_FORM}" enctype="multipart/form-data">
<input type="hidden" name="_csrf" value="${token}">
<div class="field">
<label for="f-photo">${p.photo_url ? 'Replace your photo' : 'Your photo'}</label>
<p class="hint" id="f-photo-hint">${limits}</p>
${errors?.photo && html`<p class="error" id="f-photo-error">${errors.photo}</p>`}
<input id="f-photo" name="photo" type="file" accept="image/jpeg,image/png,image/webp,image/gif,image/avif" required aria-describedby="f-photo-hint${errors?.photo ? ' f-photo-error' : ''}"${errors?.photo ? html` aria-invalid="true"` : ''}>
</div>
<button type="submit">Upload photo</button>
</form>`;
}

function interviewForm(
  p: FounderProfileView,
  questions: InterviewQuestion[],
  token: string,
  errors?: FieldMessages,
  values?: Record<string, string>,
) {
  if (questions.length === 0) return html`<p>There are no interview questions on this site.</p>`;
  const saved = new Map(p.interview.map((a) => [a.question_id, a.answer]));
  return postForm(
    INTERVIEW_FORM,
    token,
    html`<p class="hint">Answer the questions you like; they show on your public founder page. Leave one empty to skip it.</p>
${questions.map((q) => textArea({ name: answerField(q), label: q.text, value: values?.[answerField(q)] ?? saved.get(q.id), error: errors?.[answerField(q)], rows: 3, maxlength: 2000 }))}
<button type="submit">Save answers</button>`,
  );
}
