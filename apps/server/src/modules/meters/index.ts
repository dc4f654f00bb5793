export type { MeterRow } from "./repository.js";
export { findMeters } from "./repository.js";
export { registerMeterRoutes } from "./routes.js";
