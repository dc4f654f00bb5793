export { findProducts, type ProductRow } from "./repository.js";
export { registerProductRoutes } from "./routes.js";
export { productSummary } from "./wire.js";
