import { Button, Select, Stack } from "@mantine/core";
import { IconPlus } from "@tabler/icons-react";
import { useState } from "react";
import { PageHeader } from "../../../components/states";
import { useBilling, useListParams } from "../../../features/billing/list";
import { DeleteRowDialog, type Editing, EditorModal } from "../../../features/billing/row-actions";
import { CustomFieldForm } from "../../../features/custom-fields/custom-field-form";
import { CustomFieldsTable, TYPE_LABELS } from "../../../features/custom-fields/custom-fields-table";
import { CUSTOM_FIELD_TYPES, type CustomField } from "../../../lib/v1";

/** `/dashboard/{slug}/custom-fields`: questions asked at checkout, attached to products. */
export function CustomFieldsPage() {
  const { organizationId, canWrite } = useBilling();
  const { search, set } = useListParams();
  const type = typeof search.type === "string" ? search.type : undefined;
  const [editing, setEditing] = useState<Editing<CustomField>>(null);
  const [deleting, setDeleting] = useState<CustomField | null>(null);

  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title="Custom fields"
        description="Extra questions buyers answer at checkout (a company id, a date, a choice); attach them to products."
        actions={
          canWrite && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing("new")}>
              New field
            </Button>
          )
        }
      />
      <Select
        label="Type"
        placeholder="Every type"
        clearable
        data={CUSTOM_FIELD_TYPES.map((t) => ({ value: t, label: TYPE_LABELS[t] }))}
        value={type ?? null}
        onChange={(v) => set({ type: v ?? undefined })}
        w={220}
      />
      <CustomFieldsTable
        organizationId={organizationId}
        canWrite={canWrite}
        type={type}
        onEdit={setEditing}
        onDelete={setDeleting}
      />
      <EditorModal
        editing={editing}
        onClose={() => setEditing(null)}
        newTitle="New custom field"
        editTitle="Edit custom field"
      >
        {(field) => (
          <CustomFieldForm field={field} organizationId={organizationId} onDone={() => setEditing(null)} />
        )}
      </EditorModal>
      <DeleteRowDialog
        organizationId={organizationId}
        resource="custom-fields"
        row={deleting}
        onClose={() => setDeleting(null)}
        title="Delete this field?"
        confirmLabel="Delete field"
        failure="Refused."
      >
        {deleting?.name} is removed from every product's checkout.
      </DeleteRowDialog>
    </Stack>
  );
}
