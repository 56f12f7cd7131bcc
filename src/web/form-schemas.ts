import { z } from 'zod';
import { PASSWORD_MAX_LENGTH, PasswordSchema } from '../auth/passwords.ts';

/** Form fields shared by the account pages, with messages written for people. */

export const EmailField = z
  .string({ error: 'Enter your email address.' })
  .trim()
  .min(1, 'Enter your email address.')
  .max(254, 'That address is too long.')
  .pipe(z.email({ error: 'Enter an email address like name@example.com.' }));

export const NewPasswordField = PasswordSchema;

/** Any non-empty password may be tried at sign-in; the length rules are for new passwords. */
export const PasswordAttemptField = z
  .string({ error: 'Enter your password.' })
  .min(1, 'Enter your password.')
  .max(PASSWORD_MAX_LENGTH, 'Email or password is wrong.');
