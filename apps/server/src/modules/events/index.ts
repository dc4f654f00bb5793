export { makeEventPartitions, startEventPartitioner } from "./partitions.js";
export { registerEventRoutes } from "./routes.js";
