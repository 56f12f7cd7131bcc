import type { Context } from 'koa';
import type Provider from 'oidc-provider';
import type { InteractionResults } from 'oidc-provider';
import type { LazyOAuthServer, OAuthServer } from '../../auth/oauth/lazy-provider.ts';
import { SCOPES } from '../../auth/scopes.ts';
import { appError } from '../../errors/errors.ts';
import { postForm } from '../components.ts';
import { csrfToken } from '../csrf.ts';
import { formBody } from '../forms.ts';
import { html } from '../html.ts';
import { renderPage } from '../render.ts';
import { currentUser, requireUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';
import { hasHttpScheme } from '../../lib/urls.ts';

const SCOPE_WORDS: Record<string, string> = {
  'account:read': 'Read your listings, drafts, orders and claims',
  'account:write': 'Change your account: sign sessions out, change your email or password, export or delete it',
  'listings:write': 'Create drafts, edit your listings, post updates and claim listings',
  'orders:write': 'Price orders and prepare checkout links (paying always happens on our page)',
  'webhooks:write': 'Add, change and remove the web addresses we send your events to',
  'comments:write': 'Comment, reply, vote and report in your name on listings’ discussions',
};

type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;

/**
 * The OAuth interaction at /consent/{uid}: sign-in (our sign-in page, then back here), then a
 * consent page naming the client, its redirect host and the scopes, with Allow and Deny.
 */
export function consentPages(oauth: LazyOAuthServer): PageRoutes {
  return (router, services) => {
    router.get('/consent/{uid}', requireUser(services), async function showConsent(ctx) {
      const server = await oauth();
      const { provider } = server;
      const interaction = await loadInteraction(ctx, server);
      const user = (await currentUser(ctx, services))!;
      if (interaction.prompt.name === 'login') {
        // Signed in on the web already: that is the sign-in step of this authorization.
        return finish(ctx, provider, { login: { accountId: String(user.id) } });
      }
      await consentPage(ctx, services, provider, interaction);
    });

    router.post('/consent/{uid}', requireUser(services), async function decide(ctx) {
      const server = await oauth();
      const { provider } = server;
      const interaction = await loadInteraction(ctx, server);
      const user = (await currentUser(ctx, services))!;
      if (interaction.prompt.name !== 'consent' || interaction.session?.accountId !== String(user.id)) {
        throw appError('interaction_mismatch', 'Go back to the application and start again.');
      }
      if (formBody(ctx).decision !== 'allow') {
        return finish(ctx, provider, { error: 'access_denied', error_description: 'The user did not allow access.' });
      }
      const grantId = await saveGrant(provider, interaction, user.id);
      await finish(ctx, provider, { consent: { grantId } }, true);
    });
  };
}

async function loadInteraction(ctx: Context, { provider, errors }: OAuthServer): Promise<Interaction> {
  try {
    const interaction = await provider.interactionDetails(ctx.req, ctx.res);
    if (interaction.uid !== ctx.params.uid) throw new errors.SessionNotFound('interaction mismatch');
    return interaction;
  } catch (err) {
    if (err instanceof errors.OIDCProviderError) {
      throw appError('interaction_expired', 'Go back to the application and start the sign-in again.');
    }
    throw err;
  }
}

async function finish(ctx: Context, provider: Provider, result: InteractionResults, merge = false): Promise<void> {
  const location = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: merge });
  ctx.status = 303;
  ctx.redirect(location);
}

async function saveGrant(provider: Provider, interaction: Interaction, userId: number): Promise<string> {
  const { params, prompt } = interaction;
  const grant = new provider.Grant({ accountId: String(userId), clientId: String(params.client_id) });
  const details = prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(' '));
  if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(details.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  return grant.save();
}

async function consentPage(ctx: Context, services: WebServices, provider: Provider, interaction: Interaction): Promise<void> {
  const client = await provider.Client.find(String(interaction.params.client_id));
  if (!client) throw appError('unknown_client', 'Go back to the application and start again.');
  const redirect = new URL(String(interaction.params.redirect_uri));
  const requested = String(interaction.params.scope ?? '').split(' ');
  const scopes = SCOPES.filter((scope) => requested.includes(scope));
  // After Allow or Deny the browser is sent on to the client's redirect URI: let the form go there.
  const target = hasHttpScheme(redirect) ? redirect.origin : redirect.protocol;
  const name = client.clientName ?? client.clientId;
  const token = await csrfToken(ctx, services);
  await renderPage(ctx, services, {
    title: `Allow ${name} to use your account?`,
    external: { form: [target] },
    main: html`<p><strong>${name}</strong> wants to use your Listing Directory account.
After you choose, you go back to <strong>${redirect.host || redirect.protocol}</strong>.</p>
${
  scopes.length
    ? html`<p>It asks to:</p><ul class="scopes">${scopes.map((scope) => html`<li><code>${scope}</code>: ${SCOPE_WORDS[scope]}</li>`)}</ul>`
    : html`<p>It asks only to know who you are; it cannot read or change anything.</p>`
}
<p class="muted">You can disconnect it at any time under <a href="/account/connected-apps">Connected apps</a>.</p>
${postForm(
  `/consent/${interaction.uid}`,
  token,
  html`<div class="actions">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</div>`,
)}`,
  });
}
