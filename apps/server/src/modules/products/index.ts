export { catalogVersionSql, configureCatalogCache } from "./catalog-cache.js";
export {
  findProductsOnce,
  pinCatalogVersion,
  pricesToWireOnce,
  productWiresOnce,
  useCatalogVersion,
} from "./memo.js";
export {
  activePrices,
  findPrices,
  findProducts,
  listProducts,
  type PriceRow,
  type ProductRow,
  productOfPrice,
} from "./repository.js";
export { registerProductRoutes } from "./routes.js";
export { type PriceWire, Product, type ProductWire } from "./schemas.js";
export { pricesToWire, productSummary, productsToWire, trialOf } from "./wire.js";
