import { z } from 'zod';
import { addMilestone, deleteMilestone } from '../domain/listings/milestones.ts';
import { Milestone, NewMilestone } from './listing-edit-schemas.ts';
import { callerId, defineOperation } from './operation.ts';
import { Id } from './schemas.ts';

export const addMilestoneOp = defineOperation({
  name: 'add_milestone',
  summary: 'Add a dated milestone to one of your listings',
  description: 'Milestones show publicly on paid listings or when the milestones section is unlocked; you always see them.',
  method: 'POST',
  path: '/me/listings/{listing_id}/milestones',
  scope: 'listings:write',
  idempotent: true,
  errorCodes: ['milestone_limit'],
  readOnly: false,
  successStatus: 201,
  tags: ['my listings'],
  input: z.object({ listing_id: Id, ...NewMilestone }).strict(),
  output: Milestone,
  handler: ({ listing_id, ...milestone }, ctx) =>
    addMilestone(ctx.db, callerId(ctx), listing_id, milestone, {
      editorId: callerId(ctx),
      operation: 'add_milestone',
      requestId: ctx.requestId,
    }),
});

export const deleteMilestoneOp = defineOperation({
  name: 'delete_milestone',
  summary: 'Delete a milestone of one of your listings',
  method: 'DELETE',
  path: '/me/listings/{listing_id}/milestones/{milestone_id}',
  scope: 'listings:write',
  idempotent: true,
  readOnly: false,
  destructive: true,
  tags: ['my listings'],
  input: z.object({ listing_id: Id, milestone_id: Id }),
  output: z.object({ id: Id, deleted: z.literal(true) }),
  async handler(input, ctx) {
    await deleteMilestone(ctx.db, callerId(ctx), input.listing_id, input.milestone_id, {
      editorId: callerId(ctx),
      operation: 'delete_milestone',
      requestId: ctx.requestId,
    });
    return { id: input.milestone_id, deleted: true as const };
  },
});

export const milestoneOperations = [addMilestoneOp, deleteMilestoneOp];
