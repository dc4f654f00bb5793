export { configureIngestGroups } from "./group.js";
export { type EventJobDeps, eventJobs, STATE_NOTICE_JOB } from "./jobs.js";
export { makeEventPartitions, startEventPartitioner } from "./partitions.js";
export { orphanClaimStatement, takeOrphans } from "./repository.js";
export { registerEventRoutes } from "./routes.js";
