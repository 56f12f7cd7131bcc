/**
 * What the discussion's pages read beside list_comments: the one reading of links in a comment's
 * text (the page turns exactly the links the link limit counts into anchors) and the limits the
 * forms state.
 */
export { textParts, COMMENT_MAX_CHARS, EDIT_WINDOW_MINUTES, type TextPart } from '../../domain/comments/text.ts';
export { REPORT_REASONS, type ReportReason } from '../../domain/comments/reports.ts';
export type { CommentView, Thread, ThreadComment, ThreadSort } from '../../domain/comments/thread.ts';
