/** The GitHub and Discord accounts customers connect in the portal, and the platforms' clients. */
export {
  OAUTH_PLATFORMS,
  type OAuthPlatform,
  PlatformError,
} from "./platforms.js";
export type { ConnectState } from "./seal.js";
export {
  type ConnectedAccount,
  type Connections,
  claimConnectState,
  connectedAccounts,
  createConnections,
} from "./service.js";
