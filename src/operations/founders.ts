import { founderProfileOperations } from './founder-profile.ts';
import { founderStoryOperations } from './founder-story.ts';

/** Founder story, founder profile, photo and interview operations. */
export const founderOperations = [...founderStoryOperations, ...founderProfileOperations];
