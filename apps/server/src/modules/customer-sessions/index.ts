export { codeFailureGuard } from "./code-guard.js";
export { registerCustomerSessionRoutes } from "./routes.js";
export {
  type AuthenticatedCustomerSession,
  authenticateCustomerSession,
  CUSTOMER_SESSION_TTL_MS,
  type CustomerSessionPurpose,
  createCustomerSession,
  customerPortalUrl,
  purposeAllows,
} from "./service.js";
export { CUSTOMER_SESSION_PREFIX } from "./token.js";
