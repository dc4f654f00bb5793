export { codeFailureGuard } from "./code-guard.js";
export { registerCustomerSessionRoutes } from "./routes.js";
export {
  type AuthenticatedCustomerSession,
  authenticateCustomerSession,
  CUSTOMER_SESSION_TTL_MS,
  createCustomerSession,
  customerPortalUrl,
} from "./service.js";
export { CUSTOMER_SESSION_PREFIX } from "./token.js";
