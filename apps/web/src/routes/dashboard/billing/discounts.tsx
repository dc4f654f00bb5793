import { useBilling } from "../../../features/billing/list";
import { ListPage, useEditor, useRowDialog } from "../../../features/billing/list-page";
import { DeleteRowDialog, EditorModal } from "../../../features/billing/row-actions";
import { DiscountForm } from "../../../features/discounts/discount-form";
import { DiscountsTable } from "../../../features/discounts/discounts-table";
import type { Discount } from "../../../lib/v1";

/** `/dashboard/{slug}/discounts`: codes and automatic discounts on products. */
export function DiscountsPage() {
  const { organizationId, canWrite } = useBilling();
  const editor = useEditor<Discount>();
  const deleting = useRowDialog<Discount>();

  return (
    <ListPage
      title="Discounts"
      description="Fixed or percentage reductions, once, for some months or forever, with an optional code."
      newAction={canWrite && { label: "New discount", onClick: editor.create }}
    >
      <DiscountsTable
        organizationId={organizationId}
        canWrite={canWrite}
        onEdit={editor.edit}
        onDelete={deleting.open}
      />
      <EditorModal editor={editor} newTitle="New discount" editTitle="Edit discount">
        {(discount) => (
          <DiscountForm discount={discount} organizationId={organizationId} onDone={editor.close} />
        )}
      </EditorModal>
      <DeleteRowDialog
        organizationId={organizationId}
        resource="discounts"
        dialog={deleting}
        title="Delete this discount?"
        confirmLabel="Delete discount"
        failure="Refused."
      >
        {deleting.row?.name} can no longer be redeemed; subscriptions that have it keep it.
      </DeleteRowDialog>
    </ListPage>
  );
}
