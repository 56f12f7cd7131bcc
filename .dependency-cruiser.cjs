// The layering of docs/architecture.md as rules, run by `npm run lint`:
//   transport (api | mcp | web | admin) → operations → domain → db / Temporal / adapters.
// Workflows are replayed, so they reach I/O only through activities imported as types. What
// workflows and their callers share (ids, signals, task queues, search attributes, the calendar)
// is src/workflows/contracts/, pure, below everything that imports it.
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
      comment:
        'The domain declares the ports it needs (workflow starter, payments, search) and main.ts hands it the implementations; of the workflows it reads only the pure contracts (ids, the calendar).',
      from: { path: '^src/domain/' },
      to: {
        path: ['^src/temporal/', '^src/workflows/', '^src/activities/', '^src/payments/', '^src/search/', '^src/services\\.ts$', '^src/main\\.ts$'],
        pathNot: '^src/workflows/contracts/',
      },
    },
    {
      name: 'domain-knows-no-temporal',
      severity: 'error',
      comment:
        'The domain talks to workflows through the WorkflowStarter port only: nothing it imports, however indirectly (so not the signal definitions), is a Temporal package.',
      from: { path: '^src/domain/' },
      to: { path: 'node_modules/@temporalio/', reachable: true },
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
      from: { path: '^src/(db|payments|mail|cache|config|errors|lib)/' },
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
      from: { path: '^src/(db|mail|cache|config|errors|lib)/' },
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
        pathNot: ['^src/domain/listings/(search-port|listing-row)\\.ts$', '^src/workflows/contracts/weeks\\.ts$'],
      },
    },
    {
      name: 'workflows-are-deterministic',
      severity: 'error',
      comment: 'Workflow code is replayed: no I/O; activities and the domain are imported as types only.',
      from: { path: '^src/workflows/' },
      to: {
        pathNot: ['^src/workflows/', 'node_modules/@temporalio/(workflow|common)/'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'workflow-contracts-are-pure',
      severity: 'error',
      comment:
        'The contracts are imported by workflows, the client adapter, the domain and tests alike: they hold names, definitions and pure functions, importing (other than as types) only each other and the SDK\'s pure definition helpers.',
      from: { path: '^src/workflows/contracts/' },
      to: {
        pathNot: ['^src/workflows/contracts/', 'node_modules/@temporalio/(workflow|common)/'],
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
