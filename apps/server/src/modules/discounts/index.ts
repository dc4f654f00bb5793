export { registerDiscountRoutes } from "./routes.js";
