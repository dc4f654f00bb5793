export type { CustomFieldRow } from "./repository.js";
export { findCustomFields } from "./repository.js";
export { registerCustomFieldRoutes } from "./routes.js";
export { customFieldToWire } from "./service.js";
