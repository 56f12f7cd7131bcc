import { accountPages } from './account.ts';
import { apiKeyPages } from './api-keys.ts';
import { connectedAppPages } from './connected-apps.ts';
import { devMailboxPages } from './dev-mailbox.ts';
import { emailLinkPages } from './email-links.ts';
import { homePages } from './home.ts';
import type { PageRoutes } from './page-routes.ts';
import { signInPages } from './sign-in.ts';
import { signUpPages } from './sign-up.ts';

/** Every page module of the site; add one line per new module. */
export const pageModules: PageRoutes[] = [
  homePages,
  signUpPages,
  signInPages,
  emailLinkPages,
  accountPages,
  apiKeyPages,
  connectedAppPages,
  devMailboxPages,
];
