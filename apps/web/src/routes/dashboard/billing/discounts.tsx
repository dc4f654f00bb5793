import { Button, Stack } from "@mantine/core";
import { IconPlus } from "@tabler/icons-react";
import { useState } from "react";
import { PageHeader } from "../../../components/states";
import { useBilling } from "../../../features/billing/list";
import { DeleteRowDialog, type Editing, EditorModal } from "../../../features/billing/row-actions";
import { DiscountForm } from "../../../features/discounts/discount-form";
import { DiscountsTable } from "../../../features/discounts/discounts-table";
import type { Discount } from "../../../lib/v1";

/** `/dashboard/{slug}/discounts`: codes and automatic discounts on products. */
export function DiscountsPage() {
  const { organizationId, canWrite } = useBilling();
  const [editing, setEditing] = useState<Editing<Discount>>(null);
  const [deleting, setDeleting] = useState<Discount | null>(null);

  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title="Discounts"
        description="Fixed or percentage reductions, once, for some months or forever, with an optional code."
        actions={
          canWrite && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing("new")}>
              New discount
            </Button>
          )
        }
      />
      <DiscountsTable
        organizationId={organizationId}
        canWrite={canWrite}
        onEdit={setEditing}
        onDelete={setDeleting}
      />
      <EditorModal
        editing={editing}
        onClose={() => setEditing(null)}
        newTitle="New discount"
        editTitle="Edit discount"
      >
        {(discount) => (
          <DiscountForm discount={discount} organizationId={organizationId} onDone={() => setEditing(null)} />
        )}
      </EditorModal>
      <DeleteRowDialog
        organizationId={organizationId}
        resource="discounts"
        row={deleting}
        onClose={() => setDeleting(null)}
        title="Delete this discount?"
        confirmLabel="Delete discount"
        failure="Refused."
      >
        {deleting?.name} can no longer be redeemed; subscriptions that have it keep it.
      </DeleteRowDialog>
    </Stack>
  );
}
