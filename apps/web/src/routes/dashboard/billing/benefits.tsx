import { Modal, Select } from "@mantine/core";
import { BenefitForm } from "../../../features/benefits/benefit-form";
import { BenefitGrants } from "../../../features/benefits/benefit-grants";
import { BENEFIT_LABELS, BenefitsTable } from "../../../features/benefits/benefits-table";
import { useBilling, useListParams } from "../../../features/billing/list";
import { ListPage, useEditor, useRowDialog } from "../../../features/billing/list-page";
import { DeleteRowDialog, EditorModal } from "../../../features/billing/row-actions";
import { BENEFIT_TYPES, type Benefit } from "../../../lib/v1";

/** `/dashboard/{slug}/benefits`: what buyers get with a product. */
export function BenefitsPage() {
  const { organizationId, canWrite } = useBilling();
  const { search, set } = useListParams();
  const type = typeof search.type === "string" ? search.type : undefined;
  const editor = useEditor<Benefit>();
  const deleting = useRowDialog<Benefit>();
  const viewing = useRowDialog<Benefit>();

  return (
    <ListPage
      title="Benefits"
      description="License keys, file downloads, repository or Discord access, credits and notes granted with products."
      newAction={canWrite && { label: "New benefit", onClick: editor.create }}
    >
      <Select
        label="Kind"
        placeholder="Every kind"
        clearable
        data={BENEFIT_TYPES.map((t) => ({ value: t, label: BENEFIT_LABELS[t] }))}
        value={type ?? null}
        onChange={(v) => set({ type: v ?? undefined })}
        w={260}
      />
      <BenefitsTable
        organizationId={organizationId}
        canWrite={canWrite}
        type={type}
        onEdit={editor.edit}
        onDelete={deleting.open}
        onGrants={viewing.open}
      />
      <Modal
        opened={viewing.row !== null}
        onClose={viewing.close}
        title={viewing.row ? `Grants of ${viewing.row.description}` : ""}
        size="xl"
      >
        {viewing.row && (
          <BenefitGrants organizationId={organizationId} benefitId={viewing.row.id} canWrite={canWrite} />
        )}
      </Modal>
      <EditorModal editor={editor} newTitle="New benefit" editTitle="Edit benefit">
        {(benefit) => <BenefitForm benefit={benefit} organizationId={organizationId} onDone={editor.close} />}
      </EditorModal>
      <DeleteRowDialog
        organizationId={organizationId}
        resource="benefits"
        dialog={deleting}
        title="Delete this benefit?"
        confirmLabel="Delete benefit"
        failure="Could not delete."
      >
        {deleting.row?.description} is removed from every product; grants already given are revoked.
      </DeleteRowDialog>
    </ListPage>
  );
}
