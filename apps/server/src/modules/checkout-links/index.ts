export { registerCheckoutLinkRoutes } from "./routes.js";
