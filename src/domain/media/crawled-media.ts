import { AppError } from '../../errors/errors.ts';
import { createCrawlAgent, fetchBytes } from '../crawl/fetch-page.ts';
import { mediaCandidates, type Found } from '../crawl/extract-draft.ts';
import { CrawlError, type CrawlOptions, type CrawlResult, type DraftContent } from '../crawl/types.ts';
import { IMAGE_LIMITS } from './images.ts';
import { storeListingMedia, type ListingMediaKind } from './listing-media.ts';
import type { MediaStore } from './media-port.ts';

/** Addresses tried per kind, best first. */
const MAX_CANDIDATES = 3;
/** One image fetch at most this long (or the crawl's own time-out when shorter). */
const FETCH_TIMEOUT_MS = 8_000;
/** No new fetch starts after this long, so the drafting step ends well within its 30 s. */
const BUDGET_MS = 15_000;
const ACCEPT = 'image/avif,image/webp,image/png,image/jpeg,image/gif;q=0.9,image/*;q=0.5';

/**
 * The drafted logo and preview image made real: the addresses the home page names (JSON-LD logo,
 * apple-touch-icon, icon links; og:image, twitter:image) are fetched through the crawler's guarded
 * fetch (address guard, redirects, image types only, 5 MB), checked and resized like an upload,
 * and stored in the media store. `logo_url` / `image_url` become their `/media/...` paths, with the
 * evidence of the address used; a kind with no usable image is null. Never fails for a bad image.
 */
export async function withCrawledMedia(
  draft: DraftContent,
  result: CrawlResult,
  crawl: CrawlOptions,
  media: MediaStore,
): Promise<DraftContent> {
  const candidates = mediaCandidates(result);
  const agent = createCrawlAgent(crawl.allowPrivateNetworks);
  const deadline = Date.now() + BUDGET_MS;
  const options = { ...crawl, maxBytes: IMAGE_LIMITS.maxBytes, timeoutMs: Math.min(crawl.timeoutMs, FETCH_TIMEOUT_MS) };
  const first = async (kind: ListingMediaKind, found: Found<string>[]) => {
    for (const candidate of found.slice(0, MAX_CANDIDATES)) {
      if (Date.now() > deadline) break;
      try {
        const fetched = await fetchBytes(candidate.value, options, agent, {
          accept: ACCEPT,
          acceptContentType: (t) => t.startsWith('image/'),
        });
        return { path: await storeListingMedia(media, kind, fetched.bytes), evidence: candidate.evidence };
      } catch (err) {
        // A missing, refused or unreadable image: try the next address.
        if (!(err instanceof CrawlError || err instanceof AppError)) throw err;
      }
    }
    return null;
  };
  try {
    const [logo, image] = await Promise.all([first('logo', candidates.logo_url), first('image', candidates.image_url)]);
    const fields = { ...draft.fields, logo_url: logo?.path ?? null, image_url: image?.path ?? null };
    const evidence = { ...draft.evidence };
    delete evidence.logo_url;
    delete evidence.image_url;
    if (logo) evidence.logo_url = logo.evidence;
    if (image) evidence.image_url = image.evidence;
    return { fields, evidence };
  } finally {
    await agent.destroy().catch(() => {});
  }
}
