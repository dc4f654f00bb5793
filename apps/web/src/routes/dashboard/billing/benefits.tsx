import { Button, Modal, Select, Stack } from "@mantine/core";
import { IconPlus } from "@tabler/icons-react";
import { useState } from "react";
import { PageHeader } from "../../../components/states";
import { BenefitForm } from "../../../features/benefits/benefit-form";
import { BenefitGrants } from "../../../features/benefits/benefit-grants";
import { BENEFIT_LABELS, BenefitsTable } from "../../../features/benefits/benefits-table";
import { useBilling, useListParams } from "../../../features/billing/list";
import { DeleteRowDialog, type Editing, EditorModal } from "../../../features/billing/row-actions";
import { BENEFIT_TYPES, type Benefit } from "../../../lib/v1";

/** `/dashboard/{slug}/benefits`: what buyers get with a product. */
export function BenefitsPage() {
  const { organizationId, canWrite } = useBilling();
  const { search, set } = useListParams();
  const type = typeof search.type === "string" ? search.type : undefined;
  const [editing, setEditing] = useState<Editing<Benefit>>(null);
  const [deleting, setDeleting] = useState<Benefit | null>(null);
  const [viewing, setViewing] = useState<Benefit | null>(null);

  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title="Benefits"
        description="License keys, file downloads, repository or Discord access, credits and notes granted with products."
        actions={
          canWrite && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing("new")}>
              New benefit
            </Button>
          )
        }
      />
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
        onEdit={setEditing}
        onDelete={setDeleting}
        onGrants={setViewing}
      />
      <Modal
        opened={viewing !== null}
        onClose={() => setViewing(null)}
        title={viewing ? `Grants of ${viewing.description}` : ""}
        size="xl"
      >
        {viewing && (
          <BenefitGrants organizationId={organizationId} benefitId={viewing.id} canWrite={canWrite} />
        )}
      </Modal>
      <EditorModal
        editing={editing}
        onClose={() => setEditing(null)}
        newTitle="New benefit"
        editTitle="Edit benefit"
      >
        {(benefit) => (
          <BenefitForm benefit={benefit} organizationId={organizationId} onDone={() => setEditing(null)} />
        )}
      </EditorModal>
      <DeleteRowDialog
        organizationId={organizationId}
        resource="benefits"
        row={deleting}
        onClose={() => setDeleting(null)}
        title="Delete this benefit?"
        confirmLabel="Delete benefit"
        failure="Could not delete."
      >
        {deleting?.description} is removed from every product; grants already given are revoked.
      </DeleteRowDialog>
    </Stack>
  );
}
