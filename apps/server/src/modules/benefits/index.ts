export { type BenefitRow, findBenefit, findBenefitsWithDeleted } from "./repository.js";
export { registerBenefitRoutes } from "./routes.js";
export { Benefit, type BenefitWire } from "./schemas.js";
export {
  type BenefitDeleted,
  benefitsByProduct,
  benefitToWire,
  setProductBenefits,
} from "./service.js";
export { type BenefitTargets, configureBenefitTargets, refusedTarget } from "./targets.js";
