/** The wire schemas live in `@kassa/contracts/v1` (custom-fields.ts); this module reads them from there. */
export {
  CUSTOM_FIELD_PROPERTIES as PROPERTIES,
  CUSTOM_FIELD_TYPES,
  CustomField,
  CustomFieldCreate,
  type CustomFieldCreateInput,
  type CustomFieldType,
  CustomFieldUpdate,
  type CustomFieldUpdateInput,
  type CustomFieldWire,
} from "@kassa/contracts/v1";
