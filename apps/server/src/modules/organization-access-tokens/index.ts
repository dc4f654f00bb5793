export { registerOrganizationAccessTokenRoutes } from "./routes.js";
export { type AuthenticatedToken, authenticateToken, TOKEN_PREFIX } from "./service.js";
