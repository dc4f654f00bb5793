import type { CustomFieldCreate, CustomFieldUpdate } from "@kassa/contracts/v1";
import type { z } from "zod";
import { type CustomField, listQuery, type QueryValue } from "../../lib/v1";
import { useSaveRow } from "../billing/form";

/** An organization's custom fields, a page of them by the list's params. */
export const customFieldsQuery = (organizationId: string, params: Record<string, QueryValue>) =>
  listQuery<CustomField>(organizationId, "custom-fields", params);

export type CustomFieldBody = z.input<typeof CustomFieldCreate> | z.input<typeof CustomFieldUpdate>;

/** Creates a custom field, or updates the one named by `id`. */
export const useSaveCustomField = (organizationId: string) =>
  useSaveRow<CustomFieldBody, CustomField>(organizationId, "custom-fields");
