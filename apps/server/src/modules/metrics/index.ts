export { registerMetricRoutes } from "./routes.js";
