import type { OutgoingMail } from '../../mail/outbox.ts';

/** The mails of claims; plain text. */

export const claimLinkMail = (to: string, listingName: string, link: string, expiresAt: Date): OutgoingMail => ({
  to,
  subject: `Confirm that you claim ${listingName}`,
  text: [
    `Someone asked to verify ownership of ${listingName} on Listing Directory with this address.`,
    '',
    'Open this link while signed in to the account that made the claim (it works once, until',
    `${expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC):`,
    link,
    '',
    'If it was not you, ignore this mail: nothing changes without the link.',
  ].join('\n'),
});

export const ownershipMovedMail = (
  to: string,
  listing: { name: string; slug: string },
  baseUrl: string,
  claimId: number,
): OutgoingMail => ({
  to,
  dedupeKey: `claim-transfer:${claimId}`,
  subject: `${listing.name} has a new owner`,
  text: [
    `Another account proved that it controls the website of ${listing.name} and is now its owner on Listing Directory`,
    `(claim ${claimId}). The listing no longer shows among your listings.`,
    '',
    `The listing: ${baseUrl}/listings/${listing.slug}`,
    '',
    'If this is wrong, reply to this mail or claim the listing back from its page.',
  ].join('\n'),
});

export const claimExpiredMail = (to: string, listing: { name: string; slug: string }, baseUrl: string, claimId: number): OutgoingMail => ({
  to,
  dedupeKey: `claim-expired:${claimId}`,
  subject: `Your claim of ${listing.name} expired`,
  text: [
    `Your claim ${claimId} of ${listing.name} expired before we could verify it.`,
    '',
    `Start a new claim from the listing's page: ${baseUrl}/listings/${listing.slug}`,
    `Your claims: ${baseUrl}/account/claims`,
  ].join('\n'),
});

/** The site team's decision on a claim, with their reason (the claim page shows it too). */
export const claimDecisionMail = (
  to: string,
  listing: { name: string; slug: string },
  decision: { outcome: 'approved' | 'rejected'; reason: string },
  baseUrl: string,
  claimId: number,
): OutgoingMail => ({
  to,
  dedupeKey: `claim-decision:${claimId}`,
  subject: decision.outcome === 'approved' ? `Your claim of ${listing.name} was approved` : `Your claim of ${listing.name} was rejected`,
  text: [
    decision.outcome === 'approved'
      ? `Our site team approved your claim ${claimId} of ${listing.name}: the listing is yours now.`
      : `Our site team rejected your claim ${claimId} of ${listing.name}; the listing stays as it was.`,
    '',
    'Their reason:',
    decision.reason,
    '',
    `Your claims: ${baseUrl}/account/claims`,
    `The listing: ${baseUrl}/listings/${listing.slug}`,
  ].join('\n'),
});
