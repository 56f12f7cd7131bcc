import { Runtime } from '@temporalio/worker';
import type { Config } from '../config.ts';

/**
 * With TEMPORAL_METRICS_PORT set, the SDK's own worker metrics (task slots, poll and
 * schedule-to-start latencies, activity and workflow outcomes) are served for Prometheus at
 * `http://{HOST}:{port}/metrics`. Must run before the first worker connection of the process.
 */
export function installTemporalRuntime(config: Pick<Config, 'host' | 'metrics'>): void {
  const port = config.metrics.temporalPort;
  if (port === null) return;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress: `${host}:${port}` } } } });
}
