// The layering of docs/architecture.md as rules, run by `npm run lint`:
//   transport (api | mcp | web | admin) → operations → domain → db / Temporal / adapters.
// Workflows are replayed, so they reach I/O only through activities imported as types.
const TRANSPORT = '^src/(api|mcp|web|admin|app\\.ts)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'An import cycle makes the load order decide behaviour; break it with a port or by moving the shared part down.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'domain-knows-no-transport',
      severity: 'error',
      comment: 'The domain serves every transport; api, mcp, web and admin call it, never the other way.',
      from: { path: '^src/domain/' },
      to: { path: [TRANSPORT, '^src/operations/'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'domain-uses-ports',
      severity: 'error',
      comment: 'The domain declares the ports it needs (workflow starter, payments, search) and main.ts hands it the implementations.',
      from: { path: '^src/domain/' },
      to: { path: ['^src/temporal/', '^src/workflows/', '^src/activities/', '^src/payments/', '^src/search/', '^src/services\\.ts$', '^src/main\\.ts$'] },
    },
    {
      name: 'operations-know-no-transport',
      severity: 'error',
      comment: 'Operations are the contract every transport calls; they import none of them.',
      from: { path: '^src/operations/' },
      to: { path: [TRANSPORT], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'transports-are-separate',
      severity: 'error',
      comment: 'REST, MCP, the web and the admin CLI each call the operations; none borrows another.',
      from: { path: '^src/(api|mcp|web|admin)/' },
      to: { path: '^src/(api|mcp|web|admin)/', pathNot: '^src/$1/' },
    },
    {
      name: 'web-goes-through-operations',
      severity: 'error',
      comment: 'Pages are a transport: they call operations (invoke) and read models beside them, never db, and only types from the domain.',
      from: { path: '^src/web/' },
      to: { path: ['^src/db/', '^src/domain/'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'lower-layers-know-no-upper',
      severity: 'error',
      comment: 'db, config, payments, mail, caches and the URL check sit below the domain and import nothing above them.',
      from: { path: '^src/(db|payments|mail|cache|config\\.ts|config-orders\\.ts|errors\\.ts|paths\\.ts|urls\\.ts)' },
      to: {
        path: [TRANSPORT, '^src/operations/', '^src/domain/', '^src/auth/', '^src/workflows/', '^src/activities/'],
        // The payment adapters implement the domain's PaymentProvider port (its types, event mapping
        // and the event schema every provider's webhook is checked against).
        pathNot: '^src/domain/orders/payment-(port|events)\\.ts$',
      },
    },
    {
      name: 'only-payments-implement-the-payment-port',
      severity: 'error',
      comment: 'Below the domain only the payment adapters read its PaymentProvider port.',
      from: { path: '^src/(db|mail|cache|config\\.ts|config-orders\\.ts|errors\\.ts|paths\\.ts)' },
      to: { path: '^src/domain/orders/payment-(port|events)\\.ts$' },
    },
    {
      name: 'search-implements-its-port',
      severity: 'error',
      comment:
        'The search engines implement the domain\'s SearchEngine port: they read its types, the listing row and the calendar, and db; nothing else above them.',
      from: { path: '^src/search/' },
      to: {
        path: [TRANSPORT, '^src/operations/', '^src/domain/', '^src/auth/', '^src/workflows/', '^src/activities/'],
        pathNot: '^src/domain/(listings/(search-port|listing-row)|ranking/weeks)\\.ts$',
      },
    },
    {
      name: 'workflows-are-deterministic',
      severity: 'error',
      comment: 'Workflow code is replayed: no I/O; activities are imported as types, the domain only for its pure calendar and name lists.',
      from: { path: '^src/workflows/' },
      to: {
        pathNot: ['^src/workflows/', '^node_modules/@temporalio/(workflow|common)', '^src/domain/[a-z-]+/(weeks|kinds)\\.ts$'],
        dependencyTypesNot: ['type-only'],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|test|bench|tools|temporal|examples)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
