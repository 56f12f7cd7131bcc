import { absoluteUrl } from '../../lib/paths.ts';
import type { OutgoingMail } from '../../mail/outbox.ts';

/** Where the account's links lead (pages of src/web/pages/account-control.ts). */
export const accountPaths = {
  confirmEmail: (token: string) => `/account/email/confirm?token=${encodeURIComponent(token)}`,
  exportDownload: (id: number, expires: number, signature: string) =>
    `/account/exports/${id}/download?expires=${expires}&signature=${signature}`,
};

/** The single-use link at the new address. */
export const emailChangeConfirmMail = (baseUrl: string, to: string, token: string): OutgoingMail => ({
  to,
  subject: 'Confirm your new email address',
  text: [
    'You asked to use this address for your Listing Directory account.',
    '',
    'Open this link to confirm it (it works once, for 24 hours):',
    absoluteUrl(baseUrl, accountPaths.confirmEmail(token)),
    '',
    'If you did not ask for this, ignore this mail: nothing changes without the link.',
  ].join('\n'),
});

/** The notice at the current address: the person learns of a change they did not ask for. */
export const emailChangeNoticeMail = (baseUrl: string, to: string, newEmail: string): OutgoingMail => ({
  to,
  subject: 'Your email address is about to change',
  text: [
    `Someone signed in to your Listing Directory account asked to change its email address to ${newEmail}.`,
    '',
    'Nothing changes until the link mailed to that address is opened.',
    `If this was not you, sign in, change your password and sign out the other sessions: ${absoluteUrl(baseUrl, '/account#sessions')}`,
  ].join('\n'),
});

/** The export's link; it works for the signed-in account holder only, until it expires. */
export const exportReadyMail = (baseUrl: string, to: string, link: string, expiresAt: Date, dedupeKey: string): OutgoingMail => ({
  to,
  subject: 'Your data export is ready',
  dedupeKey,
  text: [
    'The archive of everything Listing Directory holds about you is ready.',
    '',
    'Download it while signed in to your account (the link works until ' +
      expiresAt.toISOString().slice(0, 16).replace('T', ' ') +
      ' UTC):',
    absoluteUrl(baseUrl, link),
    '',
    'If you did not ask for it, change your password: only you can download it, but someone asked while signed in as you.',
  ].join('\n'),
});
