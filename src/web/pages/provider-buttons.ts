import type { SignInProvider } from '../../domain/sign-in/tables.ts';
import { html, type SafeHtml } from '../html.ts';
import { safeReturnTo } from '../return-to.ts';
import type { WebServices } from '../web-services.ts';

export const PROVIDER_LABELS: Record<SignInProvider, string> = { github: 'GitHub', google: 'Google' };

/** "Continue with GitHub / Google" on the sign-in and sign-up pages; nothing when no provider is configured. */
export function providerButtons(services: WebServices, returnTo?: string): SafeHtml | undefined {
  const configured = (['github', 'google'] as const).filter((p) => services.config.socialSignIn[p]);
  if (configured.length === 0) return undefined;
  const query = returnTo && returnTo !== safeReturnTo(undefined) ? `?return_to=${encodeURIComponent(returnTo)}` : '';
  return html`<ul class="providers">${configured.map(
    (p) => html`<li><a class="provider" href="/signin/${p}${query}">Continue with ${PROVIDER_LABELS[p]}</a></li>`,
  )}</ul>
<p class="muted">Or with your email address and a password:</p>`;
}
