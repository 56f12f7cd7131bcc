import { loadSharp } from '../lib/sharp.ts';

/**
 * The site's own images: the favicon (SVG, and PNG in 32 and 180 pixels) and the default share
 * image (1200×630 PNG) of pages without an image of their own. Drawn from one SVG mark (no
 * text, so no font is needed), rendered once per process.
 */

const MARK = `<rect width="64" height="64" rx="14" fill="#0b57d0"/>
<path d="M32 11 L38.5 25 L53 26.5 L42 36.5 L45.5 51 L32 43.5 L18.5 51 L22 36.5 L11 26.5 L25.5 25 Z" fill="#ffffff"/>`;

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">${MARK}</svg>`;

const SHARE_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="630" viewBox="0 0 1200 630">
<rect width="1200" height="630" fill="#0d1117"/>
<rect x="0" y="590" width="1200" height="40" fill="#0b57d0"/>
<g transform="translate(440 155) scale(5)">${MARK}</g>
</svg>`;

export type BrandImage = 'favicon-32' | 'favicon-180' | 'share';

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
  if (name === 'share') return sharp(Buffer.from(SHARE_SVG)).png().toBuffer();
  const size = name === 'favicon-32' ? 32 : 180;
  return sharp(Buffer.from(FAVICON_SVG), { density: (72 * size) / 64 })
    .resize(size, size)
    .png()
    .toBuffer();
}
