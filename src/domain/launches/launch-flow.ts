/** Workflow id of a listing's launch flow. */
export const listingLaunchWorkflowId = (listingId: number) => `listing:${listingId}`;
