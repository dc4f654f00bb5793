import { Select } from "@mantine/core";
import { useBilling, useListParams } from "../../../features/billing/list";
import { ListPage, useEditor, useRowDialog } from "../../../features/billing/list-page";
import { DeleteRowDialog, EditorModal } from "../../../features/billing/row-actions";
import { CustomFieldForm } from "../../../features/custom-fields/custom-field-form";
import { CustomFieldsTable, TYPE_LABELS } from "../../../features/custom-fields/custom-fields-table";
import { CUSTOM_FIELD_TYPES, type CustomField } from "../../../lib/v1";

/** `/dashboard/{slug}/custom-fields`: questions asked at checkout, attached to products. */
export function CustomFieldsPage() {
  const { organizationId, canWrite } = useBilling();
  const { search, set } = useListParams();
  const type = typeof search.type === "string" ? search.type : undefined;
  const editor = useEditor<CustomField>();
  const deleting = useRowDialog<CustomField>();

  return (
    <ListPage
      title="Custom fields"
      description="Extra questions buyers answer at checkout (a company id, a date, a choice); attach them to products."
      newAction={canWrite && { label: "New field", onClick: editor.create }}
    >
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
        onEdit={editor.edit}
        onDelete={deleting.open}
      />
      <EditorModal editor={editor} newTitle="New custom field" editTitle="Edit custom field">
        {(field) => <CustomFieldForm field={field} organizationId={organizationId} onDone={editor.close} />}
      </EditorModal>
      <DeleteRowDialog
        organizationId={organizationId}
        resource="custom-fields"
        dialog={deleting}
        title="Delete this field?"
        confirmLabel="Delete field"
        failure="Refused."
      >
        {deleting.row?.name} is removed from every product's checkout.
      </DeleteRowDialog>
    </ListPage>
  );
}
