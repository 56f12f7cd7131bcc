import { z } from 'zod';

/** Environment variables of the workflow-start outbox; part of config.ts's schema (kept apart to keep it short). */
export const WORKFLOW_START_ENV = {
  WORKFLOW_START_SWEEP_MS: z.coerce
    .number()
    .int()
    .min(10)
    .default(1_000)
    .describe('How often each dispatcher looks for recorded workflow starts nobody made yet (a crash’s, a failed one’s).'),
  WORKFLOW_START_LEASE_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(15_000)
    .describe('How long a start stays with the process that recorded it (it starts it right after the commit) before any dispatcher may.'),
  WORKFLOW_START_RETRY_FIRST_MS: z.coerce
    .number()
    .int()
    .min(1)
    .default(1_000)
    .describe(
      'After a failed start (Temporal unreachable), how long the process’s dispatcher pauses before it tries again; doubled on each failure.',
    ),
  WORKFLOW_START_RETRY_MAX_MS: z.coerce.number().int().min(1).default(30_000).describe('Longest pause of a dispatcher whose starts fail.'),
};

type WorkflowStartEnv = z.output<z.ZodObject<typeof WORKFLOW_START_ENV>>;

export interface WorkflowStartConfig {
  sweepMs: number;
  leaseMs: number;
  retry: { firstMs: number; maxMs: number };
}

export function workflowStartConfig(e: WorkflowStartEnv): WorkflowStartConfig {
  return {
    sweepMs: e.WORKFLOW_START_SWEEP_MS,
    leaseMs: e.WORKFLOW_START_LEASE_MS,
    retry: { firstMs: e.WORKFLOW_START_RETRY_FIRST_MS, maxMs: e.WORKFLOW_START_RETRY_MAX_MS },
  };
}
