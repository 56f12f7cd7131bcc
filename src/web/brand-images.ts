import { loadSharp } from '../lib/sharp.ts';

/**
 * The site's own images: the favicon (SVG, and PNG in 32 and 180 pixels), drawn from one SVG
 * mark (no text, so no font is needed), rendered once per process. The mark is also the logo of
 * the site's default share card (src/domain/media/share-cards.ts).
 */

const MARK = `<rect width="64" height="64" rx="14" fill="#0b57d0"/>
<path d="M32 11 L38.5 25 L53 26.5 L42 36.5 L45.5 51 L32 43.5 L18.5 51 L22 36.5 L11 26.5 L25.5 25 Z" fill="#ffffff"/>`;

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">${MARK}</svg>`;

export type BrandImage = 'favicon-32' | 'favicon-180';

const rendered = new Map<BrandImage, Promise<Buffer>>();

/** A brand image as PNG (rendered at first use, then kept). */
export function brandPng(name: BrandImage): Promise<Buffer> {
  let png = rendered.get(name);
  if (!png) {
    png = render(name);
    rendered.set(name, png);
    png.catch(() => rendered.delete(name));
  }
  return png;
}

function render(name: BrandImage): Promise<Buffer> {
  const sharp = loadSharp();
  const size = name === 'favicon-32' ? 32 : 180;
  return sharp(Buffer.from(FAVICON_SVG), { density: (72 * size) / 64 })
    .resize(size, size)
    .png()
    .toBuffer();
}
