export {
  type DefinedJob,
  defineJob,
  type JobContext,
  type JobDefinition,
  PermanentJobError,
} from "./definition.js";
export {
  type Backoff,
  backoffDelay,
  enqueue,
  enqueueMany,
  type JobRow,
  listJobs,
  type NewJob,
  retryDeadJob,
} from "./queue.js";
export { type JobWorker, startJobWorker, type WorkerOptions } from "./worker.js";
