import { accountPages } from './account.ts';
import { apiKeyPages } from './api-keys.ts';
import { connectedAppPages } from './connected-apps.ts';
import { devMailboxPages } from './dev-mailbox.ts';
import { emailLinkPages } from './email-links.ts';
import { founderPages } from './founder.ts';
import { followPages } from './follow.ts';
import { founderProfilePages } from './founder-profile.ts';
import { homePages } from './home.ts';
import { listingPages } from './listing.ts';
import { notificationPages } from './notifications.ts';
import type { PageRoutes } from './page-routes.ts';
import { signInPages } from './sign-in.ts';
import { signUpPages } from './sign-up.ts';
import { storyEditorPages } from './story-editor.ts';
import { storyPages } from './story.ts';
import { updatesPages } from './updates.ts';

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
  // Owner content: public pages and the owner's editors.
  storyPages,
  founderPages,
  updatesPages,
  listingPages,
  founderProfilePages,
  storyEditorPages,
  // Following from the listing page and the notifications it brings.
  followPages,
  notificationPages,
];
