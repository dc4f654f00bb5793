export { registerProductRoutes } from "./routes.js";
