export {
  findMemberRole,
  findOrganization,
  findOrganizationBySlug,
  type OrganizationRow,
} from "./repository.js";
export { registerOrganizationRoutes } from "./routes.js";
