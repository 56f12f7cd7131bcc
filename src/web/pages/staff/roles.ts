import type { Context } from 'koa';
import type { z } from 'zod';
import type { StaffRole } from '../../../domain/staff/roles.ts';
import { AppError } from '../../../errors/errors.ts';
import { staffGrantRoleOp, staffListRolesOp, staffRevokeRoleOp } from '../../../operations/staff-roles.ts';
import { errorSummary, postForm, time } from '../../components.ts';
import { csrfToken } from '../../csrf.ts';
import { formBody, formString, type FieldMessages } from '../../forms.ts';
import { html, type SafeHtml } from '../../html.ts';
import { invokeForPage } from '../../invoke.ts';
import { refusal } from '../../owner-forms.ts';
import { renderPage } from '../../render.ts';
import { requireRecentFactor } from '../../staff-factor.ts';
import type { WebServices } from '../../web-services.ts';
import type { PageRoutes } from '../page-routes.ts';
import { requireStaff } from './access.ts';

const PATH = '/staff/roles';
const ROLE_WORDS: Record<StaffRole, string> = {
  admin: 'Admin: everything, prices and roles included',
  support: 'Support: orders, refunds, claims, stuck work, webhooks',
  moderator: 'Moderator: listings, edits, votes',
};
const ROLE_NAME: Record<StaffRole, string> = { admin: 'Admin', support: 'Support', moderator: 'Moderator' };

interface Change {
  email: string;
  role: string;
  all_sites: boolean;
}

/**
 * The site's staff for admins: who holds what, a form to give a role (a recent second factor
 * first: a role opens the console), and a button per role to take it back after a confirmation.
 */
export const staffRolePages: PageRoutes = (router, services) => {
  router.get(PATH, requireStaff(services, ['admin']), async function staffRoles(ctx) {
    await rolesPage(ctx, services);
  });

  router.post(`${PATH}/grant`, requireStaff(services, ['admin']), requireRecentFactor(services), async function grantRole(ctx) {
    const change = changeOf(ctx);
    try {
      const done = await invokeForPage(ctx, services, staffGrantRoleOp, change);
      ctx.status = 303;
      ctx.redirect(`${PATH}?${new URLSearchParams({ done: done.changed ? 'granted' : 'held', email: done.email, role: done.role })}`);
    } catch (err) {
      return rolesPage(ctx, services, { change, ...refusalOf(err, 'email') });
    }
  });

  router.post(`${PATH}/revoke`, requireStaff(services, ['admin']), async function revokeRole(ctx) {
    const change = changeOf(ctx);
    if (formString(formBody(ctx), 'confirm') !== 'yes') return confirmPage(ctx, services, change);
    try {
      const done = await invokeForPage(ctx, services, staffRevokeRoleOp, change);
      ctx.status = 303;
      ctx.redirect(`${PATH}?${new URLSearchParams({ done: done.changed ? 'revoked' : 'not-held', email: done.email, role: done.role })}`);
    } catch (err) {
      return rolesPage(ctx, services, refusalOf(err, 'form'));
    }
  });
};

function changeOf(ctx: Context): Change {
  const body = formBody(ctx);
  return { email: formString(body, 'email').trim(), role: formString(body, 'role'), all_sites: formString(body, 'all_sites') === 'yes' };
}

/** A refusal beside the form; an unknown email is a sentence too (a 404 of the API is a typo here). */
function refusalOf(err: unknown, field: string): { status: number; errors: FieldMessages } {
  if (err instanceof AppError && err.code === 'not_found') return { status: 404, errors: { [field]: err.message } };
  return refusal(err, field);
}

const NOTICES: Record<string, (email: string, role: string) => string> = {
  granted: (e, r) => `${e} is now ${r}.`,
  held: (e, r) => `${e} was already ${r}: nothing changed.`,
  revoked: (e, r) => `${e} is no longer ${r}. Their console pages and keys stopped at once.`,
  'not-held': (e, r) => `${e} was not ${r}: nothing changed.`,
};

interface Shown {
  status?: number;
  errors?: FieldMessages;
  change?: Change;
}

async function rolesPage(ctx: Context, services: WebServices, shown: Shown = {}) {
  const { items } = await invokeForPage(ctx, services, staffListRolesOp, {});
  const token = await csrfToken(ctx, services);
  const q = (name: string) => (typeof ctx.query[name] === 'string' ? (ctx.query[name] as string) : '');
  const notice = NOTICES[q('done')]?.(q('email'), q('role'));
  await renderPage(ctx, services, {
    title: 'Staff roles',
    status: shown.status,
    notice,
    main: html`<p><a href="/staff">Site team</a></p>
${errorSummary(shown.errors)}
<h2>Who is on the site team here</h2>
${staffTable(items, token)}
<h2>Give a role</h2>
${grantForm(token, shown)}`,
  });
}

type Member = z.output<typeof staffListRolesOp.output>['items'][number];

function staffTable(items: Member[], token: string): SafeHtml {
  if (!items.length) return html`<p>No one holds a staff role here.</p>`;
  return html`<table class="stack"><thead><tr><th scope="col">Person</th><th scope="col">Role</th><th scope="col">Where</th><th scope="col">Given</th><th scope="col">Take back</th></tr></thead>
<tbody>${items.map(
    (m) =>
      html`<tr data-member="${m.email}" data-role="${m.role}"><td data-label="Person">${m.email}</td><td data-label="Role">${ROLE_NAME[m.role]}</td><td data-label="Where">${m.all_sites ? 'Every site' : 'This site'}</td><td data-label="Given">${time(m.granted_at)} by ${m.granted_by_email ?? 'the command line'}</td><td data-label="Take back">${postForm(
        `${PATH}/revoke`,
        token,
        html`${hidden(m.email, m.role, m.all_sites)}<button type="submit" aria-label="Take back ${ROLE_NAME[m.role].toLowerCase()} from ${m.email}">Take back…</button>`,
        'revoke-form',
      )}</td></tr>`,
  )}</tbody></table>`;
}

const hidden = (email: string, role: string, allSites: boolean) =>
  html`<input type="hidden" name="email" value="${email}"><input type="hidden" name="role" value="${role}">${allSites ? html`<input type="hidden" name="all_sites" value="yes">` : ''}`;

function grantForm(token: string, shown: Shown): SafeHtml {
  const c = shown.change;
  const error = shown.errors?.email;
  return postForm(
    `${PATH}/grant`,
    token,
    html`<div class="field"><label for="f-email">Their email (they sign up first)</label>
${error ? html`<p class="error" id="f-email-error">${error}</p>` : ''}<input id="f-email" name="email" type="email" required maxlength="254" autocomplete="off" value="${c?.email ?? ''}"${error ? html` aria-invalid="true" aria-describedby="f-email-error"` : ''}></div>
<fieldset><legend>Role</legend>${(Object.keys(ROLE_WORDS) as StaffRole[]).map(
      (r) =>
        html`<div><input type="radio" id="f-role-${r}" name="role" value="${r}" required${(c?.role ?? 'support') === r ? html` checked` : ''}> <label for="f-role-${r}">${ROLE_WORDS[r]}</label></div>`,
    )}</fieldset>
<div><input type="checkbox" id="f-all-sites" name="all_sites" value="yes"${c?.all_sites ? html` checked` : ''}> <label for="f-all-sites">On every site, not only this one (only an admin of every site may)</label></div>
<p class="muted">Giving a role asks for your second factor again if you last gave it more than 10 minutes ago.</p>
<button type="submit">Give the role</button>`,
    'grant-form',
  );
}

async function confirmPage(ctx: Context, services: WebServices, change: Change) {
  const role = ROLE_NAME[change.role as StaffRole] ?? change.role;
  await renderPage(ctx, services, {
    title: `Take back ${role.toLowerCase()} from ${change.email}?`,
    main: html`<p><strong>${change.email}</strong> stops being ${role.toLowerCase()} on ${change.all_sites ? 'every site' : 'this site'} at once: the console pages and keys that role opened are refused from their next request.</p>
${postForm(
  `${PATH}/revoke`,
  await csrfToken(ctx, services),
  html`${hidden(change.email, change.role, change.all_sites)}<input type="hidden" name="confirm" value="yes"><button type="submit">Take the role back</button> <a href="${PATH}">Cancel</a>`,
)}`,
  });
}
