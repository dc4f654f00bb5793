export { Address, AddressInput, type AddressInputValue } from "./address.js";
export {
  type CheckoutCustomerInput,
  emitCustomerStateChanged,
  findCustomer,
  findOrCreateCheckoutCustomer,
  findOrCreateCustomerForCheckout,
} from "./core.js";
export { CustomerNotFound } from "./errors.js";
export {
  findByEmail as findCustomerByEmail,
  findByExternalId as findCustomerByExternalId,
  findCustomersById,
  findCustomersByIdOnce,
  markEmailVerified as markCustomerEmailVerified,
  setProcessorCustomer,
} from "./repository.js";
export { registerCustomerRoutes } from "./routes.js";
export { type CustomerDeleting, updateCustomer } from "./service.js";
export { type CustomerStateWire, customerState } from "./state.js";
export { validateTaxId } from "./tax-id.js";
export { type CustomerRow, type CustomerWire, customerWire, defaultAvatarUrl } from "./wire.js";
