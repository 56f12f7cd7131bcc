type FeedPackage = typeof import('feed');

let feed: Promise<FeedPackage> | undefined;

/**
 * The `feed` package (Atom and JSON Feed, with xml-js), imported at the first feed request:
 * importing it costs about 15 ms of CPU, which every process that builds the app (each test file
 * is one) would pay at startup, though only the feed routes (pages/feeds.ts) write a feed. The one
 * place that loads it; the other modules import only its types.
 */
export function feedPackage(): Promise<FeedPackage> {
  return (feed ??= import('feed'));
}
