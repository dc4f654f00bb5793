export { findProducts, type ProductRow } from "./repository.js";
export { registerProductRoutes } from "./routes.js";
export type { PriceWire, ProductWire } from "./schemas.js";
export { pricesToWire, productSummary, productsToWire } from "./wire.js";
