// Every workflow the worker runs; this file is the worker's workflow bundle entry.
export { draftWorkflow } from './draft.ts';
