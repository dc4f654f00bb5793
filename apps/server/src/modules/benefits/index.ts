export { findBenefit } from "./repository.js";
export { registerBenefitRoutes } from "./routes.js";
export { Benefit, type BenefitWire } from "./schemas.js";
export { benefitsByProduct, setProductBenefits } from "./service.js";
