/** The names people read for categories, platforms and sections, as the domain keeps them. */
export { DISPLAY_NAMES, displayName, type NamedKind } from '../../domain/display-names.ts';
