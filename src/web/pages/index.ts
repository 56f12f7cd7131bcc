import { accountPages } from './account.ts';
import { accountControlPages } from './account-control.ts';
import { accountLeavingPages } from './account-leaving.ts';
import { accountLaunchPages } from './account-launch.ts';
import { accountListingPages } from './account-listings.ts';
import { badgePages } from './badges.ts';
import { apiKeyPages } from './api-keys.ts';
import { secondFactorPages } from './second-factor.ts';
import { passkeyPages } from './passkeys.ts';
import { claimLinkPages } from './claim-link.ts';
import { claimPages } from './claims.ts';
import { categoryPages } from './categories.ts';
import { feedPages } from './feeds.ts';
import { seoPages } from './seo.ts';
import { checkoutPages } from './checkout.ts';
import { orderPages } from './orders.ts';
import { promotePages } from './promote.ts';
import { connectedAppPages } from './connected-apps.ts';
import { devMailboxPages } from './dev-mailbox.ts';
import { docsPages } from './docs.ts';
import { emailLinkPages } from './email-links.ts';
import { founderPages } from './founder.ts';
import { commentPages } from './comments.ts';
import { followPages } from './follow.ts';
import { founderProfilePages } from './founder-profile.ts';
import { homePages } from './home.ts';
import { launchesPages } from './launches.ts';
import { archivePages } from './archive.ts';
import { listingPages } from './listing.ts';
import { mailPreferencePages } from './mail-preferences.ts';
import { newsletterPages } from './newsletter.ts';
import { listingStatsPages } from './listing-stats.ts';
import { notificationPages } from './notifications.ts';
import type { PageRoutes } from './page-routes.ts';
import { accountListingContentPages } from './account-listing-content.ts';
import { accountListingEditPages } from './account-listing-edit.ts';
import { accountListingHomePages } from './account-listing-home.ts';
import { signInPages } from './sign-in.ts';
import { signUpPages } from './sign-up.ts';
import { socialSignInPages } from './social-sign-in.ts';
import { storyEditorPages } from './story-editor.ts';
import { storyPages } from './story.ts';
import { unsubscribePages } from './unsubscribe.ts';
import { updatesPages } from './updates.ts';
import { votePages } from './votes.ts';
import { votePolicyPages } from './vote-audit.ts';
import { listingMediaPages } from './listing-media.ts';
import { webhookPages } from './webhooks.ts';
import { staffPages } from './staff/index.ts';

/** Every page module of the site; add one line per new module. */
export const pageModules: PageRoutes[] = [
  homePages,
  signUpPages,
  signInPages,
  // "Continue with GitHub / Google", the mailed link confirmation and /account/sign-ins.
  socialSignInPages,
  emailLinkPages,
  accountPages,
  accountControlPages,
  accountLeavingPages,
  mailPreferencePages,
  newsletterPages,
  apiKeyPages,
  secondFactorPages,
  passkeyPages,
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
  docsPages,
  accountListingPages,
  // Launches: the owner's launch panel of one listing and the public badge image.
  accountLaunchPages,
  badgePages,
  // Votes, the weekly ranking and the upcoming launch weeks.
  votePages,
  commentPages,
  launchesPages,
  // Every closed week's final ranking and the best of each month and year.
  archivePages,
  // Trust in the ranking: the published policy.
  votePolicyPages,
  // Claims: the claimant's pages and the emailed link.
  claimPages,
  claimLinkPages,
  // Orders: the pay page, the account's orders and invoices.
  checkoutPages,
  orderPages,
  // Owners buy in the browser: the promote page of a listing.
  promotePages,
  categoryPages,
  // Launch analytics: clicks out through /go/{slug}, the owner's numbers and their CSV.
  listingStatsPages,
  // Listing logos and preview images.
  listingMediaPages,
  // The owner's side of a listing: its home, edit page, updates and milestones.
  accountListingHomePages,
  accountListingEditPages,
  accountListingContentPages,
  // Browse and share: robots, sitemap, favicon, share image; feeds and the launch calendar.
  seoPages,
  feedPages,
  // Webhooks: the owner's endpoints and their deliveries.
  webhookPages,
  // Mail people can stop: the one-click link's page (its POST is in router.ts, outside the CSRF check).
  unsubscribePages,
  // The site team's console.
  staffPages,
];
