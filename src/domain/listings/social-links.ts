import { parseHttpsUrl } from '../../lib/urls.ts';
import { classifySocialUrl, SOCIAL_PLATFORMS, type SocialPlatform } from '../crawl/extract-socials.ts';

export { SOCIAL_PLATFORMS, type SocialPlatform };

/** Hosts per platform, for messages; Mastodon is federated, so any server's `/@user` profile counts. */
export const PLATFORM_HOSTS: Record<SocialPlatform, string> = {
  twitter: 'x.com or twitter.com',
  linkedin: 'linkedin.com (/company/…, /in/…)',
  github: 'github.com',
  facebook: 'facebook.com',
  instagram: 'instagram.com',
  youtube: 'youtube.com (/@…, /channel/…)',
  tiktok: 'tiktok.com (/@…)',
  discord: 'discord.gg or discord.com/invite/…',
  producthunt: 'producthunt.com (/products/…, /@…)',
  mastodon: 'a Mastodon server (/@user)',
  bluesky: 'bsky.app (/profile/…)',
  threads: 'threads.net (/@…)',
};

/**
 * The canonical https profile URL of `url` on `platform`, or an owner-facing reason why it is not
 * one. Uses the crawler's classifier so that owners and the crawler agree on what a profile is.
 */
export function socialProfileUrl(platform: SocialPlatform, url: string): { url: string } | { error: string } {
  const parsed = parseHttpsUrl(url);
  if (!parsed) return { error: 'Must be an https URL without credentials' };
  const hit = classifySocialUrl(url);
  if (hit?.platform === platform) return { url: hit.url };
  if (platform === 'mastodon' && !hit && /^\/@[\w.]+\/?$/.test(parsed.pathname) && parsed.hostname.includes('.')) {
    parsed.hash = '';
    return { url: parsed.href };
  }
  return { error: `Must be a ${platform} profile URL on ${PLATFORM_HOSTS[platform]}` };
}
