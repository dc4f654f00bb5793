export { registerCustomerPortalRoutes } from "./routes.js";
