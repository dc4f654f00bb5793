export { registerOrganizationAccessTokenRoutes } from "./routes.js";
export {
  type AuthenticatedToken,
  authenticateToken,
  forgetOrganizationTokens,
  TOKEN_PREFIX,
} from "./service.js";
