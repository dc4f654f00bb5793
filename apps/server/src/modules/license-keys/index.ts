/** The license keys module: the only file other modules import. */
export {
  type GrantedLicenseKey,
  type GrantLicenseKeyInput,
  grantLicenseKey,
  revokeLicenseKey,
} from "./grant.js";
export { forgetOrganizationLicenseKeys, KEY_CACHE_TTL_MS } from "./key-cache.js";
export { expiryFrom } from "./keys.js";
export { findLicenseKey } from "./repository.js";
export { type LicenseKeyRouteDeps, PUBLIC_LICENSE_KEY_PATHS, registerLicenseKeyRoutes } from "./routes.js";
export { SIGNED_KEY_MARKER, type SignedKeyPayload } from "./signing.js";
export { flushLicenseKeyValidations } from "./validation-counts.js";
