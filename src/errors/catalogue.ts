/** One code of the catalogue: its HTTP status, its title, and what the caller can do about it. */
export interface ErrorEntry {
  status: number;
  title: string;
  /** For people (the /docs Errors section, the OpenAPI enum): what to do when this comes back. */
  action: string;
}

/**
 * THE CATALOGUE of stable error codes, the only place a code exists: `AppError` takes nothing else,
 * operations declare codes from it, and the OpenAPI document and /docs publish it. Titles that
 * read "Conflict" or "Bad request" are the status's own: those codes name the case, the detail says it.
 */
export const ERROR_CATALOGUE = {
  // 400: the request itself is wrong.
  validation_failed: {
    status: 400,
    title: 'Invalid request',
    action: 'Fix the fields named in `errors` (path and message) and send again.',
  },
  invalid_json: { status: 400, title: 'Invalid JSON', action: 'Send a body that is one valid JSON object.' },
  invalid_idempotency_key: {
    status: 400,
    title: 'Invalid Idempotency-Key',
    action: 'Send an Idempotency-Key of 1 to 255 characters, or none.',
  },
  invalid_url: { status: 400, title: 'Invalid URL', action: 'Give an http or https address without a user name or password.' },
  address_refused: {
    status: 400,
    title: 'Address refused',
    action: 'Give the public address of the website; private and local addresses are not fetched.',
  },
  invalid_form: { status: 400, title: 'The form could not be read', action: 'Go back, reload the page and send the form again.' },
  unsubscribe_link_invalid: {
    status: 400,
    title: 'This unsubscribe link does not work',
    action: 'Use the whole link from the mail, or sign in and choose your mails on your account page.',
  },
  newsletter_link_invalid: {
    status: 400,
    title: 'This newsletter link does not work',
    action: 'Use the whole link from the latest mail, or subscribe again to get a new one.',
  },
  newsletter_link_expired: {
    status: 400,
    title: 'This confirmation link has expired',
    action: 'Subscribe again to get a new confirmation mail.',
  },
  unsupported_image: { status: 400, title: 'Unsupported image', action: 'Upload a JPEG, PNG or WebP image.' },
  image_too_many_pixels: { status: 400, title: 'Bad request', action: 'Scale the image down and upload it again.' },
  image_too_small: { status: 400, title: 'Bad request', action: 'Upload a larger image.' },
  interaction_mismatch: {
    status: 400,
    title: 'This request has changed',
    action: 'Go back to the application and start the sign-in again.',
  },
  interaction_expired: {
    status: 400,
    title: 'This sign-in request has expired',
    action: 'Go back to the application and start the sign-in again.',
  },
  unknown_client: {
    status: 400,
    title: 'Unknown application',
    action: 'Go back to the application and start again; it may need to register anew.',
  },
  unknown_site: { status: 400, title: 'Bad request', action: 'Use the key of an existing site (list_sites names them).' },
  invalid_theme: { status: 400, title: 'Unknown badge theme', action: 'Use one of the badge themes the detail lists.' },
  invalid_email: { status: 400, title: 'Bad request', action: 'Give a valid email address.' },
  request_aborted: { status: 400, title: 'Bad request', action: 'Send the whole request again.' },
  bad_request: { status: 400, title: 'Bad request', action: 'Read the detail, fix the request and send it again.' },
  invalid_signature: { status: 400, title: 'Invalid signature', action: 'Sign the webhook with the shared secret of this provider.' },
  invalid_webhook: { status: 400, title: 'Invalid webhook', action: 'Send one event of the provider’s format.' },
  // 400 of the admin command line.
  usage: { status: 400, title: 'Bad request', action: 'Run the command with the flags its usage text lists.' },
  passkey_refused: {
    status: 400,
    title: 'Passkey refused',
    action: 'Start again from the second-factor page (each passkey request works once, for 5 minutes), or use a code from your app.',
  },
  invalid_status: { status: 400, title: 'Bad request', action: 'Give one of the statuses the detail lists.' },
  invalid_limit: { status: 400, title: 'Bad request', action: 'Give --limit as a whole number from 1 to 1000.' },
  invalid_id: { status: 400, title: 'Bad request', action: 'Give the numeric id.' },
  invalid_reason: { status: 400, title: 'Bad request', action: 'Give a reason of 1 to 500 characters.' },
  invalid_question: { status: 400, title: 'Bad request', action: 'Give the question as one line within the length the detail names.' },
  nothing_to_change: { status: 400, title: 'Bad request', action: 'Name at least one thing to change.' },
  no_launch: { status: 400, title: 'Bad request', action: 'Wait until the listing has a launch plan.' },
  // 401 and 403: who is asking.
  unauthorized: {
    status: 401,
    title: 'Authentication required',
    action: 'Send `Authorization: Bearer <key>` with a valid API key or access token.',
  },
  insufficient_scope: { status: 403, title: 'Insufficient scope', action: 'Use a key or token that has the scope the detail names.' },
  staff_role_required: {
    status: 403,
    title: 'Staff only',
    action: 'Ask a site admin for the staff role this action needs (staff:grant).',
  },
  email_unconfirmed: { status: 403, title: 'Email not confirmed', action: 'Open the confirmation link we mailed you, then try again.' },
  csrf_failed: { status: 403, title: 'This form has expired', action: 'Go back, reload the page and send the form again.' },
  host_not_allowed: { status: 403, title: 'Forbidden', action: 'Call the server by its own host name.' },
  origin_not_allowed: { status: 403, title: 'Forbidden', action: 'Call the server from an allowed origin, or from outside a browser.' },
  wrong_password: {
    status: 403,
    title: 'Wrong password',
    action: 'Give your current password as it is, or reset it (Forgot your password?).',
  },
  reauthentication_required: {
    status: 403,
    title: 'Sign in again first',
    action: 'Give your current password, or (an account without one) sign in again and do this within 10 minutes.',
  },
  not_comment_author: { status: 403, title: 'Forbidden', action: 'Only its author can edit or delete a comment; report it instead.' },
  // 404, 405.
  not_found: { status: 404, title: 'Not found', action: 'Check the id or address; another owner’s resource is not found either.' },
  method_not_allowed: { status: 405, title: 'Method not allowed', action: 'Use one of the methods the Allow header lists.' },
  // 409: the state of something stands in the way.
  own_second_factor: {
    status: 409,
    title: 'Conflict',
    action: 'Remove your own second factors on /account/second-factor, after verifying one; another admin can reset them.',
  },
  idempotency_in_flight: {
    status: 409,
    title: 'Conflict',
    action: 'Wait for the first request with this Idempotency-Key to finish, then retry.',
  },
  already_listed: {
    status: 409,
    title: 'Company already listed',
    action: 'Claim the listing named by `slug` at `claim_url` instead of listing it again.',
  },
  sold_out: { status: 409, title: 'Sold out', action: 'Choose another week or date; `available` names the next one with room.' },
  email_taken: { status: 409, title: 'Conflict', action: 'Sign in with that email, or use another one.' },
  draft_crawling: { status: 409, title: 'Conflict', action: 'Poll get_draft until the draft is ready.' },
  draft_drafting: { status: 409, title: 'Conflict', action: 'Poll get_draft until the draft is ready.' },
  draft_ready: { status: 409, title: 'Conflict', action: 'The draft is ready: submit it rather than repeat this.' },
  draft_submitted: { status: 409, title: 'Conflict', action: 'The draft is already a listing: work on that listing.' },
  draft_failed: { status: 409, title: 'Conflict', action: 'The crawl failed: create a new draft.' },
  listing_unlisted: { status: 409, title: 'Conflict', action: 'An unlisted listing cannot launch; contact the site team.' },
  webhook_endpoint_limit: { status: 409, title: 'Conflict', action: 'Delete a webhook endpoint you no longer use, then add this one.' },
  webhook_endpoint_disabled: { status: 409, title: 'Conflict', action: 'Enable the endpoint (update_webhook_endpoint), then redeliver.' },
  listing_not_draft: { status: 409, title: 'Conflict', action: 'The free plan is chosen before launch only; this listing is past that.' },
  paid_launch_chosen: { status: 409, title: 'Conflict', action: 'Nothing to do: the paid launch keeps its week.' },
  free_queue_full: { status: 409, title: 'Conflict', action: 'Buy a paid launch, or try the free queue again later.' },
  launch_week_full: { status: 409, title: 'Conflict', action: 'Choose another week.' },
  not_live_in_week: {
    status: 409,
    title: 'Listing not live in that week',
    action: 'Start the placement in the week `first_week` names (or launch the listing first: add a paid launch to the order).',
  },
  voting_closed: { status: 409, title: 'Conflict', action: 'Nothing to do: the week’s votes stand.' },
  vote_failed: { status: 409, title: 'Conflict', action: 'Try again.' },
  claim_own_listing: { status: 409, title: 'Conflict', action: 'Nothing to claim: you own this listing already.' },
  claim_not_pending: { status: 409, title: 'Conflict', action: 'Start a new claim; this one is over.' },
  claim_not_email: { status: 409, title: 'Conflict', action: 'Check this claim with request_claim_check instead.' },
  claim_verified_by_email: { status: 409, title: 'Conflict', action: 'Open the link we mailed while signed in.' },
  claim_resend_limit: { status: 409, title: 'Conflict', action: 'Start a new claim after this one expires.' },
  claim_already_verified: { status: 409, title: 'Claim already verified', action: 'Nothing to decide: the claimant owns the listing.' },
  order_not_pending: { status: 409, title: 'Already paid', action: 'Nothing to pay: see the order for its status.' },
  order_not_stuck: { status: 409, title: 'Conflict', action: 'Only a paid order that is not fulfilled can be retried.' },
  flow_not_retryable: { status: 409, title: 'Conflict', action: 'Follow the fix the stuck list gives for it instead of a retry.' },
  order_not_paid: { status: 409, title: 'Conflict', action: 'Only a paid order can be refunded.' },
  already_refunded: { status: 409, title: 'Conflict', action: 'Nothing to do: the order is refunded.' },
  promo_code_exists: { status: 409, title: 'Conflict', action: 'Choose another code, or change the existing one.' },
  week_not_over: { status: 409, title: 'Conflict', action: 'Close the week after it ends.' },
  flag_decided: { status: 409, title: 'Conflict', action: 'Nothing to do: the vote of this flag was voided already.' },
  last_admin: { status: 409, title: 'Conflict', action: 'Give the admin role to someone else first, then give up yours.' },
  edit_superseded: { status: 409, title: 'Conflict', action: 'Revert the later edits `detail` names first, or edit the listing by hand.' },
  listing_not_live: { status: 409, title: 'Conflict', action: 'Only a live listing shows on the site; there is nothing to unlist.' },
  listing_not_unlisted: { status: 409, title: 'Conflict', action: 'Nothing to do: the listing is not unlisted.' },
  comment_duplicate: {
    status: 409,
    title: 'Conflict',
    action: 'Write for this listing: the same text was posted on another listing already.',
  },
  comment_edit_closed: { status: 409, title: 'Conflict', action: 'Post a reply instead, or delete the comment and post it anew.' },
  comment_state_conflict: {
    status: 409,
    title: 'Conflict',
    action: 'Read the comment’s status in the moderation queue: the action does not apply to it (the detail says why).',
  },
  // 410: gone for good.
  checkout_expired: { status: 410, title: 'This checkout has expired', action: 'Nothing was charged: ask for a new checkout link.' },
  email_link_invalid: {
    status: 410,
    title: 'This link no longer works',
    action: 'The link expired or was used already: ask for the email change again on /account.',
  },
  export_link_invalid: {
    status: 410,
    title: 'This download link no longer works',
    action: 'The link expired: ask for a new export on /account.',
  },
  // 413, 415.
  payload_too_large: { status: 413, title: 'Payload too large', action: 'Send a smaller body; the detail names the limit.' },
  image_too_large: { status: 413, title: 'Image too large', action: 'Upload a smaller image; the detail names the limit.' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type', action: 'Send `application/json` (or another `+json` type).' },
  // 422: understood, and refused.
  last_sign_in_method: {
    status: 422,
    title: 'The last way to sign in',
    action: 'Set a password (Forgot your password? on the sign-in page) or link another provider first, then unlink this one.',
  },
  idempotency_conflict: { status: 422, title: 'Unprocessable request', action: 'Use a new Idempotency-Key for a different request.' },
  invalid_answers: { status: 422, title: 'Answers refused', action: 'Answer only the questions `errors` does not name.' },
  order_item_refused: { status: 422, title: 'Order item refused', action: 'Change or remove the items `errors` names.' },
  promo_code_refused: {
    status: 422,
    title: 'Promo code refused',
    action: 'Change the values the detail names: the discount, the products or the dates.',
  },
  promo_code_invalid: { status: 422, title: 'Promo code cannot be used', action: 'Check the code, or order without it.' },
  vat_number_invalid: { status: 422, title: 'Invalid VAT number', action: 'Correct the VAT number, or leave it out and pay VAT.' },
  story_below_minimum: {
    status: 422,
    title: 'Unprocessable request',
    action: 'Keep the published story at its minimum length and sections.',
  },
  draft_incomplete: { status: 422, title: 'Unprocessable request', action: 'Set a name with update_draft, then submit.' },
  launch_week_past: { status: 422, title: 'Unprocessable request', action: 'Choose this week or a later one.' },
  launch_week_too_far: { status: 422, title: 'Unprocessable request', action: 'Choose a nearer week.' },
  badge_url_off_domain: { status: 422, title: 'Unprocessable request', action: 'Give a page of the listing’s own website.' },
  email_claim_unavailable: { status: 422, title: 'Email claim not possible', action: 'Claim by DNS, meta tag or file instead.' },
  decision_reason_invalid: {
    status: 422,
    title: 'Reason needed',
    action: 'Give the claimant a reason of 1 to 1000 characters: they read it in a mail and on their claim page.',
  },
  own_listing: { status: 422, title: 'Unprocessable request', action: 'Vote for other listings.' },
  vote_voided: { status: 422, title: 'Unprocessable request', action: 'Nothing to do: the site team removed this vote.' },
  milestone_limit: { status: 422, title: 'Unprocessable request', action: 'Delete a milestone first.' },
  unknown_role: { status: 422, title: 'Unknown role', action: 'Give one of the roles the detail lists.' },
  reason_required: { status: 422, title: 'Reason required', action: 'Say why in `reason`: the owner reads it.' },
  reply_to_reply: {
    status: 422,
    title: 'Unprocessable request',
    action: 'Reply to the top-level comment (`parent_id` of the reply) instead.',
  },
  own_comment: { status: 422, title: 'Unprocessable request', action: 'Vote for other people’s comments.' },
  // 422 of a crawl the admin import ran (the draft flow reports these as a draft's failure_reason).
  dns_failure: { status: 422, title: 'Crawl failed', action: 'Check the website’s domain name.' },
  connection_failed: { status: 422, title: 'Crawl failed', action: 'Check the website is up, then retry.' },
  timeout: { status: 422, title: 'Crawl failed', action: 'Retry when the website answers faster.' },
  http_error: { status: 422, title: 'Crawl failed', action: 'Check the address answers 200.' },
  not_html: { status: 422, title: 'Crawl failed', action: 'Give the address of an HTML page.' },
  too_large: { status: 422, title: 'Crawl failed', action: 'Give the address of a smaller page.' },
  too_many_redirects: { status: 422, title: 'Crawl failed', action: 'Give the final address, not one that redirects.' },
  redirect_refused: { status: 422, title: 'Crawl failed', action: 'Give the final public address.' },
  robots_disallowed: { status: 422, title: 'Crawl failed', action: 'Allow our crawler in robots.txt.' },
  // 429: slow down.
  rate_limited: { status: 429, title: 'Too many requests', action: 'Wait the Retry-After seconds, then retry.' },
  quota_exceeded: {
    status: 429,
    title: 'Too many requests',
    action: 'Wait `retry_after_seconds` (also Retry-After); `quota` and `limit` say which limit.',
  },
  // 5xx: our side.
  internal_error: { status: 500, title: 'Internal error', action: 'Retry later; if it persists, report the request_id.' },
  output_invalid: { status: 500, title: 'Output breaks its schema', action: 'Report the request_id: the server broke its own contract.' },
  payments_unavailable: { status: 503, title: 'Payments unavailable', action: 'Payments are not set up on this server; ask its operator.' },
  seller_details_missing: {
    status: 503,
    title: 'Payments unavailable',
    action: 'The site’s operator must set the seller’s details for invoices (sites:set) before it takes payments; nothing was charged.',
  },
  workflow_unavailable: { status: 503, title: 'Service unavailable', action: 'Retry after Retry-After seconds.' },
  database_unavailable: { status: 503, title: 'Service unavailable', action: 'Retry after Retry-After seconds.' },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The codes of one status, so that e.g. `conflict()` takes 409 codes only. */
export type CodeOf<S extends number> = { [K in ErrorCode]: (typeof ERROR_CATALOGUE)[K]['status'] extends S ? K : never }[ErrorCode];

export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];
