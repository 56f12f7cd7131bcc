import type { OutgoingMail } from '../mail/outbox.ts';
import { absoluteUrl, paths } from '../lib/paths.ts';

/** The mails of the account pages; plain text with one link each. */

export const verifyEmailMail = (baseUrl: string, to: string, token: string): OutgoingMail => ({
  to,
  subject: 'Confirm your email address',
  text: [
    'Welcome to Listing Directory.',
    '',
    'Open this link to confirm your email address (it works once, for 24 hours):',
    absoluteUrl(baseUrl, paths.verifyEmail(token)),
    '',
    'If you did not sign up, ignore this mail: nothing happens without the link.',
  ].join('\n'),
});

export const resetPasswordMail = (baseUrl: string, to: string, token: string): OutgoingMail => ({
  to,
  subject: 'Reset your password',
  text: [
    'Someone (hopefully you) asked to reset the password of your Listing Directory account.',
    '',
    'Open this link to choose a new password (it works once, for 1 hour):',
    absoluteUrl(baseUrl, paths.resetPassword(token)),
    '',
    'Choosing a new password signs you out everywhere else and disconnects the apps you connected',
    'with OAuth (they ask you to allow them again). Your API keys keep working; see or revoke them at',
    `${baseUrl}/account/keys`,
    'If you did not ask for this, ignore this mail: your password stays as it is.',
  ].join('\n'),
});

/** Sent instead of a second account, so the sign-up page never tells whether an address is registered. */
export const alreadyRegisteredMail = (baseUrl: string, to: string, dedupeKey: string): OutgoingMail => ({
  to,
  subject: 'You already have an account',
  dedupeKey,
  text: [
    'Someone tried to sign up to Listing Directory with this address, which already has an account.',
    '',
    `Sign in: ${absoluteUrl(baseUrl, paths.signIn)}`,
    `Forgot your password? ${absoluteUrl(baseUrl, paths.forgotPassword)}`,
    '',
    'If it was not you, ignore this mail.',
  ].join('\n'),
});
