import type { LogLevel, LogMetadata, Logger as SdkLogger } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';

const PINO_LEVEL = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/**
 * The SDK's logs as our JSON log lines: workflow and activity lines carry the SDK's metadata
 * (workflowId, runId, workflowType, activityId, taskQueue), so every line of a flow is found by
 * its workflow id.
 */
export function sdkLogger(log: Logger): SdkLogger {
  const write = (level: LogLevel, message: string, meta?: LogMetadata) => log[PINO_LEVEL[level]]({ ...meta }, message);
  return {
    log: write,
    trace: (message, meta) => write('TRACE', message, meta),
    debug: (message, meta) => write('DEBUG', message, meta),
    info: (message, meta) => write('INFO', message, meta),
    warn: (message, meta) => write('WARN', message, meta),
    error: (message, meta) => write('ERROR', message, meta),
  };
}

/**
 * Sets up the process's Temporal runtime: SDK logs through pino and, with TEMPORAL_METRICS_PORT
 * set, the SDK's own worker metrics (task slots, poll and schedule-to-start latencies, activity
 * and workflow outcomes) for Prometheus at `http://{HOST}:{port}/metrics`. Must run before the
 * first worker connection of the process.
 */
export function installTemporalRuntime(config: Pick<Config, 'host' | 'metrics'>, log: Logger): void {
  const port = config.metrics.temporalPort;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  Runtime.install({
    logger: sdkLogger(log.child({ component: 'temporal' })),
    ...(port === null ? {} : { telemetryOptions: { metrics: { prometheus: { bindAddress: `${host}:${port}` } } } }),
  });
}
