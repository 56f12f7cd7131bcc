import { asArray, fragment, ORGANIZATION_TYPES, PRODUCT_TYPES, hasType } from './json-ld.ts';
import type { ParsedPage } from './page.ts';
import { clean, snippet } from './text.ts';
import type { Evidence } from './types.ts';
import { parseHttpUrl } from '../../lib/urls.ts';

export const SOCIAL_PLATFORMS = [
  'twitter',
  'linkedin',
  'github',
  'facebook',
  'instagram',
  'youtube',
  'tiktok',
  'discord',
  'producthunt',
  'mastodon',
  'bluesky',
  'threads',
] as const;
export type SocialPlatform = (typeof SOCIAL_PLATFORMS)[number];

const MASTODON_HOSTS = new Set([
  'mastodon.social',
  'mastodon.online',
  'fosstodon.org',
  'hachyderm.io',
  'mstdn.social',
  'infosec.exchange',
  'mas.to',
  'techhub.social',
  'indieweb.social',
  'mastodon.world',
  'social.vivaldi.net',
]);

/** Path segments that are not profiles (share dialogs, intents, site pages). */
const NOT_PROFILE: Record<string, Set<string>> = {
  twitter: new Set([
    'intent',
    'share',
    'home',
    'search',
    'hashtag',
    'i',
    'login',
    'signup',
    'explore',
    'settings',
    'tos',
    'privacy',
    'messages',
    'notifications',
  ]),
  facebook: new Set([
    'sharer',
    'sharer.php',
    'share',
    'share.php',
    'dialog',
    'plugins',
    'login',
    'login.php',
    'tr',
    'policies',
    'privacy',
    'help',
    'groups',
  ]),
  instagram: new Set(['p', 'reel', 'reels', 'explore', 'accounts', 'stories', 'direct', 'about', 'legal']),
  github: new Set([
    'features',
    'pricing',
    'login',
    'join',
    'signup',
    'about',
    'marketplace',
    'explore',
    'topics',
    'trending',
    'collections',
    'settings',
    'sponsors',
    'enterprise',
    'security',
    'site',
    'contact',
    'readme',
    'apps',
    'search',
    'orgs',
  ]),
  tiktok: new Set(['share', 'embed', 'tag', 'music', 'discover', 'login']),
};

/**
 * Classifies a URL as a profile on a known platform; share/intent links and posts are not profiles.
 * Returns the platform and the canonical URL, or null.
 */
export function classifySocialUrl(href: string): { platform: SocialPlatform; url: string } | null {
  const u = parseHttpUrl(href);
  if (!u) return null;
  const host = u.hostname.toLowerCase().replace(/^(www|m|mobile)\./, '');
  const segs = u.pathname.split('/').filter(Boolean);
  const first = (segs[0] ?? '').toLowerCase();
  const out = (platform: SocialPlatform) => {
    u.hash = '';
    return { platform, url: u.href };
  };
  if (host === 'twitter.com' || host === 'x.com') {
    if (!first || NOT_PROFILE.twitter!.has(first) || segs.length > 1) return null;
    return u.search.includes('url=') || u.search.includes('text=') ? null : out('twitter');
  }
  if (host.endsWith('linkedin.com')) {
    if (['company', 'in', 'school', 'showcase'].includes(first) && segs.length >= 2) return out('linkedin');
    return null;
  }
  if (host === 'github.com') {
    if (!first || NOT_PROFILE.github!.has(first) || segs.length > 2) return null;
    return out('github');
  }
  if (host === 'facebook.com' || host === 'fb.com') {
    if (!first || NOT_PROFILE.facebook!.has(first)) return null;
    if (first === 'profile.php' && !u.searchParams.get('id')) return null;
    if (segs.length > 2 && first !== 'pages') return null;
    return out('facebook');
  }
  if (host === 'instagram.com') {
    if (!first || NOT_PROFILE.instagram!.has(first) || segs.length > 1) return null;
    return out('instagram');
  }
  if (host === 'youtube.com') {
    if (first.startsWith('@') || (['channel', 'c', 'user'].includes(first) && segs.length >= 2)) return out('youtube');
    return null;
  }
  if (host === 'tiktok.com') {
    if (first.startsWith('@') && segs.length === 1) return out('tiktok');
    return null;
  }
  if (host === 'discord.gg') return first ? out('discord') : null;
  if (host === 'discord.com' || host === 'discordapp.com') {
    return first === 'invite' && segs.length >= 2 ? out('discord') : null;
  }
  if (host === 'producthunt.com') {
    if (['products', 'posts'].includes(first) && segs.length >= 2 && segs.length <= 2) return out('producthunt');
    if (first.startsWith('@') && segs.length === 1) return out('producthunt');
    return null;
  }
  if (host === 'bsky.app') return first === 'profile' && segs.length === 2 ? out('bluesky') : null;
  if (host === 'threads.net' || host === 'threads.com') {
    return first.startsWith('@') && segs.length === 1 ? out('threads') : null;
  }
  if (MASTODON_HOSTS.has(host)) return first.startsWith('@') && segs.length === 1 ? out('mastodon') : null;
  return null;
}

export interface SocialsResult {
  socials: Record<string, string>;
  evidence: Record<string, Evidence>;
}

/** Social profiles linked from the pages (home first), then JSON-LD sameAs. */
export function extractSocials(pages: ParsedPage[]): SocialsResult {
  const socials: Record<string, string> = {};
  const evidence: Record<string, Evidence> = {};
  const add = (href: string, ev: Evidence) => {
    const hit = classifySocialUrl(href);
    if (!hit || socials[hit.platform]) return;
    socials[hit.platform] = hit.url;
    evidence[hit.platform] = ev;
  };
  for (const page of pages) {
    const { $ } = page;
    for (const node of page.jsonLd) {
      if (!hasType(node, ...ORGANIZATION_TYPES, ...PRODUCT_TYPES, 'Person', 'WebSite')) continue;
      for (const v of asArray(node.sameAs)) {
        if (typeof v === 'string') add(v.trim(), { source_url: page.url, snippet: fragment('sameAs', v) });
      }
    }
    $('a[href], link[rel~="me"][href]').each((_, el) => {
      const href = clean($(el).attr('href'));
      if (!href || !/^https?:\/\//i.test(href)) return;
      const rel = ($(el).attr('rel') ?? '').toLowerCase();
      if (rel.split(/\s+/).includes('me')) {
        // rel="me" marks an identity link: accept any Mastodon-style profile.
        const u = URL.parse(href);
        if (!u) return;
        if (/^\/@[\w.]+\/?$/.test(u.pathname) && !classifySocialUrl(href)) {
          if (!socials.mastodon) {
            socials.mastodon = u.href;
            evidence.mastodon = { source_url: page.url, snippet: snippet($.html(el) ?? href) };
          }
          return;
        }
      }
      add(href, { source_url: page.url, snippet: snippet($.html(el) ?? href) });
    });
  }
  return { socials, evidence };
}
