export { registerEventRoutes } from "./routes.js";
