/** Polar's metadata rules and schemas live in `@kassa/contracts/v1` (common.ts). */
export {
  METADATA_KEY_MAX,
  METADATA_MAX_KEYS,
  METADATA_STRING_MAX,
  type Metadata,
  MetadataInput,
  MetadataOutput,
  type MetadataValue,
} from "@kassa/contracts/v1";
