export { registerOrganizationRoutes } from "./routes.js";
