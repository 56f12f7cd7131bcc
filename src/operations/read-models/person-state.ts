/**
 * What a person's pages show of their own, whatever the page: kept per api process (caches.people)
 * between changes, so most signed-in pages read nothing. Their comments' bodies and held
 * comments are not in it: they are read for a page of a listing they commented on.
 */
export interface PersonState {
  unread: number;
  voted: ReadonlySet<number>;
  own: ReadonlySet<number>;
  following: ReadonlySet<number>;
  /** Listings they commented on. */
  commented: ReadonlySet<number>;
  commentVotes: ReadonlySet<number>;
}
