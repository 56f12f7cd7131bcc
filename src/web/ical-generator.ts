type IcalGenerator = typeof import('ical-generator');

let generator: Promise<IcalGenerator> | undefined;

/**
 * The `ical-generator` package, imported at the first calendar request (`/launches.ics`, in
 * pages/feeds.ts) rather than by every process that builds the app (each test file is one). The
 * one place that loads it; the other modules import only its types.
 */
export function icalGenerator(): Promise<IcalGenerator> {
  return (generator ??= import('ical-generator'));
}
