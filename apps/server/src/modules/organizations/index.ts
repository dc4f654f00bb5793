export { findMemberRole, findOrganization, type OrganizationRow } from "./repository.js";
export { registerOrganizationRoutes } from "./routes.js";
