/** The wire schemas live in `@kassa/contracts/v1` (customer-sessions.ts); this module reads them from there. */
export {
  CustomerSession,
  CustomerSessionCreate,
  type CustomerSessionCreateInput,
  CustomerSessionMailed,
  type CustomerSessionMailedWire,
  type CustomerSessionWire,
} from "@kassa/contracts/v1";
