// `npm run fault:orders`: the order fault scenario (100 paid orders while the worker process is
// killed and restarted 20 times), run on its own, not by `npm test` (see README, "Orders and payments").
export default {
  files: ['test/workflows/order-fault.scenario.ts'],
  extensions: { ts: 'module' },
  timeout: '20m',
  workerThreads: false,
};
