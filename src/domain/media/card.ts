import { loadSharp } from '../../lib/sharp.ts';
import type { Db } from '../../db/knex.ts';
import { sha256Hex } from '../../lib/hash.ts';
import { cardVersion, type CardInputs } from './card-url.ts';
import type { MediaFile, MediaStore } from './media-port.ts';

export const CARD = { width: 1200, height: 630 } as const;

const LOGO_SIDE = 160;
const MARGIN = 80;

/** Text for SVG: XML-escaped, without the control characters XML does not allow. */
export function svgText(value: string): string {
  return value
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffe\uffff]/g, '')
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/** Words into at most `maxLines` lines of about `perLine` characters; an ellipsis marks a cut. */
export function wrapText(text: string, perLine: number, maxLines: number): string[] {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    const piece = word.length > perLine ? `${word.slice(0, perLine - 1)}…` : word;
    if (!line) line = piece;
    else if (line.length + 1 + piece.length <= perLine) line += ` ${piece}`;
    else {
      lines.push(line);
      line = piece;
    }
    if (lines.length === maxLines) break;
  }
  if (line && lines.length < maxLines) lines.push(line);
  const used = lines.join(' ').split(/\s+/).length;
  if (used < words.length && lines.length > 0) {
    const last = lines[lines.length - 1]!;
    lines[lines.length - 1] = `${last.length >= perLine ? last.slice(0, perLine - 1) : last}…`;
  }
  return lines;
}

const hostOf = (url: string) => URL.parse(url)?.host.replace(/^www\./, '') ?? '';

/** The card as SVG: name, headline and the listing's web address; room for the logo at the top left. */
export function cardSvg(l: CardInputs, hasLogo: boolean): string {
  const nameLines = wrapText(l.name, 26, 2);
  const headlineLines = l.headline ? wrapText(l.headline, 46, 3) : [];
  const nameTop = hasLogo ? MARGIN + LOGO_SIDE + 90 : 200;
  const name = nameLines.map((line, i) => `<tspan x="${MARGIN}" y="${nameTop + i * 76}">${svgText(line)}</tspan>`).join('');
  const headTop = nameTop + (nameLines.length - 1) * 76 + 70;
  const headline = headlineLines.map((line, i) => `<tspan x="${MARGIN}" y="${headTop + i * 48}">${svgText(line)}</tspan>`).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${CARD.width}" height="${CARD.height}" viewBox="0 0 ${CARD.width} ${CARD.height}">
<rect width="100%" height="100%" fill="#ffffff"/>
<rect width="100%" height="16" fill="#1d4ed8"/>
<text font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="64" font-weight="bold" fill="#111827">${name}</text>
<text font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="36" fill="#374151">${headline}</text>
<text x="${MARGIN}" y="${CARD.height - 56}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="28" fill="#1d4ed8">${svgText(hostOf(l.url))}</text>
</svg>`;
}

/** Renders the 1200×630 PNG: the SVG with the logo (a stored 256 px PNG) composited at the top left. */
export async function renderCard(l: CardInputs, logo: Buffer | null): Promise<Buffer> {
  const sharp = loadSharp();
  const base = sharp(Buffer.from(cardSvg(l, logo !== null)));
  const layers = logo
    ? [
        {
          input: await sharp(logo).resize(LOGO_SIDE, LOGO_SIDE, { fit: 'contain', background: '#ffffff00' }).toBuffer(),
          left: MARGIN,
          top: MARGIN,
        },
      ]
    : [];
  return base.composite(layers).png({ compressionLevel: 9 }).toBuffer();
}

/**
 * The card image of a live listing, rendered once per version (a hash of what it shows) and kept
 * in the media store, so every api process serves the same bytes; null for no live listing.
 */
export async function listingCardImage(db: Db, media: MediaStore, slug: string): Promise<(MediaFile & { version: string }) | null> {
  const listing: CardInputs | undefined = await db('listings')
    .where({ slug, status: 'live' })
    .first('slug', 'name', 'headline', 'logo_url', 'url');
  if (!listing) return null;
  const version = cardVersion(listing);
  return keptCard(media, `cards/${version}.png`, version, async () => {
    const logo = listing.logo_url ? await media.get(listing.logo_url.slice('/media/'.length)) : null;
    return renderCard(listing, logo?.body ?? null);
  });
}

/**
 * A card image by its key (which names what it shows): the stored one, else `render`ed once and
 * stored, so every api process serves the same bytes.
 */
export async function keptCard(
  media: MediaStore,
  key: string,
  version: string,
  render: () => Promise<Buffer>,
): Promise<MediaFile & { version: string }> {
  const stored = await media.get(key);
  if (stored) return { ...stored, version };
  const body = await render();
  const file: MediaFile = {
    key,
    contentType: 'image/png',
    body,
    etag: sha256Hex(body).slice(0, 32),
    width: CARD.width,
    height: CARD.height,
  };
  await media.put([file]);
  return { ...file, version };
}
