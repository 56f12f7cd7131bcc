import type { OutgoingMail } from '../../mail/outbox.ts';
import { absoluteUrl } from '../../lib/paths.ts';
import type { SignInProvider } from './tables.ts';

export const PROVIDER_NAMES: Record<SignInProvider, string> = { github: 'GitHub', google: 'Google' };

export const confirmLinkPath = (token: string) => `/sign-ins/confirm?token=${encodeURIComponent(token)}`;

/** Sent to the account's own address before another provider may sign in to it. */
export const confirmLinkMail = (baseUrl: string, to: string, provider: SignInProvider, token: string): OutgoingMail => ({
  to,
  subject: `Sign in with ${PROVIDER_NAMES[provider]}?`,
  text: [
    `Someone signed in to ${PROVIDER_NAMES[provider]} with this address and asked to use it to sign in to your Listing Directory account.`,
    '',
    `If it was you, open this link and confirm (it works once, for 1 hour):`,
    absoluteUrl(baseUrl, confirmLinkPath(token)),
    '',
    `If it was not you, ignore this mail: nothing changes without the link. Your account keeps its password and sign-ins.`,
  ].join('\n'),
});
