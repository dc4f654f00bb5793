/** The wire schemas live in `@kassa/contracts/v1` (address.ts); this module reads them from there. */
export {
  Address,
  AddressInput,
  type AddressInputValue,
  ALL_COUNTRIES,
  INPUT_COUNTRIES,
} from "@kassa/contracts/v1";
