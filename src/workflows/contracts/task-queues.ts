/** One task queue per area (docs/architecture.md: How a workflow travels). */
export const TASK_QUEUES = {
  drafts: 'drafts',
  listings: 'listings',
  orders: 'orders',
  claims: 'claims',
  ranking: 'ranking',
  webhooks: 'webhooks',
  accounts: 'accounts',
} as const;
