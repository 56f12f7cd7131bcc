/** One task queue per area (DESIGN.md §6). */
export const TASK_QUEUES = {
  drafts: 'drafts',
  listings: 'listings',
  orders: 'orders',
  claims: 'claims',
  ranking: 'ranking',
} as const;
