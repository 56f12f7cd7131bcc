/**
 * THE paths of the service, for everything that builds a URL: routers, pages, mails, documents
 * and the start-up banner. Site-relative; `absoluteUrl(config.baseUrl, path)` makes a link for a mail.
 */
export const paths = {
  home: '/',
  signIn: '/signin',
  signUp: '/signup',
  forgotPassword: '/forgot-password',
  verifyEmail: (token: string) => `/verify-email?token=${encodeURIComponent(token)}`,
  resetPassword: (token: string) => `/reset-password?token=${encodeURIComponent(token)}`,
  listing: (slug: string) => `/listings/${encodeURIComponent(slug)}`,
  /** Out to a listing's website, counted as a click (launch analytics). */
  go: (slug: string) => `/go/${encodeURIComponent(slug)}`,
  /** The owner's launch numbers of a listing, and the same as CSV. */
  listingStats: (listingId: number) => `/account/listings/${listingId}/stats`,
  listingStatsCsv: (listingId: number) => `/account/listings/${listingId}/stats.csv`,
  /** The form that starts a claim of a listing (a person's way; agents call claim_listing). */
  newClaim: (slug: string) => `/account/claims/new?slug=${encodeURIComponent(slug)}`,
  /** Where the single-use link of an email claim lands (`?token=`). */
  claimLink: '/claims/email-link',
  apiKeys: '/account/keys',
  revokeApiKey: (keyId: number) => `/account/keys/${keyId}/revoke`,
  founderProfile: '/account/founder-profile',
  storyEditor: (listingId: number) => `/account/listings/${listingId}/story`,
  story: (listingSlug: string) => `/stories/${encodeURIComponent(listingSlug)}`,
  founder: (userId: number) => `/founders/${userId}`,
  founderPhoto: (userId: number, etag: string) => `/media/founders/${userId}/photo.webp?v=${etag}`,
  /** A stored media file (its key names its content, so the URL never changes what it shows). */
  media: (key: string) => `/media/${key}`,
  /** A listing's square logo at 256 or 64 px (PNG); `logo_url` is the 256 px one. */
  listingLogo: (id: string, size: 256 | 64) => `/media/logos/${id}/${size}.png`,
  /** A listing's 1200×630 preview image (JPEG). */
  listingImage: (id: string) => `/media/images/${id}.jpg`,
  /** A listing's generated 1200×630 card image (PNG); `v` is a hash of what it shows. */
  listingCard: (slug: string, version: string) => `/media/cards/${encodeURIComponent(slug)}.png?v=${version}`,
  /** The owner's page to replace a listing's logo and preview image. */
  listingImages: (listingId: number) => `/account/listings/${listingId}/images`,
  /** The one-click unsubscribe link of a stoppable mail: GET shows a button, POST stops the mail. */
  unsubscribe: (token: string) => `/unsubscribe/${encodeURIComponent(token)}`,
  /** The mail section of the account page, and the form that changes it. */
  mailPreferences: '/account#mail',
  changeMailPreferences: '/account/mail',
  /** The weekly newsletter: the subscribe form's target, its two mailed links, the account's switch. */
  newsletter: '/newsletter',
  newsletterConfirm: (token: string) => `/newsletter/confirm/${encodeURIComponent(token)}`,
  newsletterUnsubscribe: (token: string) => `/newsletter/unsubscribe/${encodeURIComponent(token)}`,
  accountNewsletter: '/account/newsletter',
  devMailbox: '/dev/mailbox',
  api: '/api/v1',
  /** A REST route of the registry, e.g. `apiRoute('/listings/12/follow')`. */
  apiRoute: (operationPath: string) => `/api/v1${operationPath}`,
  openApi: '/api/v1/openapi.json',
  mcp: '/mcp',
} as const;

/** `path` on the public origin (a link in a mail, a document, a log line). */
export const absoluteUrl = (baseUrl: string, path: string) => `${baseUrl}${path}`;

/** A stored `/media/...` path (a listing's logo_url or image_url column) as an absolute URL, or null. */
export const mediaUrl = (baseUrl: string, path: string | null) => (path === null ? null : absoluteUrl(baseUrl, path));

/** The 64 px logo beside a listing's 256 px `logo_url` (absolute or site-relative), for small places like lists. */
export const smallLogoUrl = (logoUrl: string) => logoUrl.replace(/\/256\.png$/, '/64.png');
