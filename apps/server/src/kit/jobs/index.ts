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
  completeJobsSql,
  enqueue,
  enqueueMany,
  enqueueSql,
  type JobClaim,
  type JobRow,
  listJobs,
  type NewJob,
  notifyJobWorkers,
  retryDeadJob,
} from "./queue.js";
export { type JobWorker, startJobWorker, type WorkerOptions } from "./worker.js";
