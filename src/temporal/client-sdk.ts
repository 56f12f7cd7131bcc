import { createRequire } from 'node:module';

type TemporalClientSdk = typeof import('@temporalio/client');

const requireCommonJs = createRequire(import.meta.url);
let sdk: TemporalClientSdk | undefined;

/**
 * The Temporal client SDK (@temporalio/client), loaded at its first use. Importing it (grpc-js,
 * protobufjs and the proto definitions) costs about 0.19 s of CPU, which every process that builds
 * the services (each test file is one) would pay at startup, though only the requests that start or
 * signal a workflow, /readyz, the support commands, a worker's start (its Schedules and search
 * attributes) and the wait for the embedded dev server talk to Temporal. It is required (its
 * CommonJS build), not imported, so that its callers stay synchronous. The one place that loads
 * the client SDK; the other modules import only its types.
 */
export function temporalClientSdk(): TemporalClientSdk {
  return (sdk ??= requireCommonJs('@temporalio/client') as TemporalClientSdk);
}
