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
  enqueueJobsSql,
  enqueueMany,
  enqueueSql,
  enqueueWithEvents,
  holdJobs,
  type JobClaim,
  type JobRow,
  listJobs,
  markNotified,
  mustNotify,
  type NewJob,
  notifyJobsSql,
  notifyJobWorkers,
  retryDeadJob,
  takeHeldJobs,
} from "./queue.js";
export { type JobWorker, startJobWorker, type WorkerOptions } from "./worker.js";
