import { Badge } from "@mantine/core";
import { IconForms } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import type { CustomField, CustomFieldType } from "../../lib/v1";
import { formatDate } from "../billing/format";
import { SearchedListView, useSearchedListParams } from "../billing/list";
import { EditableName, RowDeleteButton } from "../billing/row-actions";
import { customFieldsQuery } from "./queries";

export const TYPE_LABELS: Record<CustomFieldType, string> = {
  text: "Text",
  number: "Number",
  date: "Date",
  checkbox: "Checkbox",
  select: "Choice list",
};

/** The organization's custom fields of `type` (every type when undefined), searched by name or slug from the address. */
export function CustomFieldsTable({
  organizationId,
  canWrite,
  type,
  onEdit,
  onDelete,
}: {
  organizationId: string;
  canWrite: boolean;
  type: string | undefined;
  onEdit: (field: CustomField) => void;
  onDelete: (field: CustomField) => void;
}) {
  const { query, params } = useSearchedListParams();
  const fields = useQuery(customFieldsQuery(organizationId, { ...params, type }));
  return (
    <SearchedListView
      searchPlaceholder="Name or slug"
      query={fields}
      label="custom fields"
      caption="Custom fields"
      empty={{
        icon: IconForms,
        title: query ? "No field matches" : type ? "No field of this type" : "No custom fields yet",
        children: query
          ? type
            ? "Change the search or the type to see more."
            : "Change the search to see more."
          : canWrite
            ? "Create a field, then attach it to a product (required or optional) in the product editor."
            : "An owner or admin of this organization creates custom fields.",
      }}
      columns={[
        {
          label: "Name",
          sort: "name",
          render: (f) => (
            <EditableName canWrite={canWrite} onEdit={() => onEdit(f)}>
              {f.name}
            </EditableName>
          ),
        },
        { label: "Slug", sort: "slug", render: (f) => <code>{f.slug}</code> },
        {
          label: "Type",
          sort: "type",
          render: (f) => <Badge variant="light">{TYPE_LABELS[f.type]}</Badge>,
        },
        { label: "Created", sort: "created_at", render: (f) => formatDate(f.created_at) },
        {
          label: "Actions",
          render: (f) => (
            <RowDeleteButton show={canWrite} label={`Delete ${f.name}`} onClick={() => onDelete(f)} />
          ),
        },
      ]}
    />
  );
}
