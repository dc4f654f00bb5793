export { findMemberRole } from "./repository.js";
export { registerOrganizationRoutes } from "./routes.js";
