import { useBilling } from "../../../features/billing/list";
import { ListPage, useEditor, useRowDialog } from "../../../features/billing/list-page";
import { DeleteRowDialog, EditorModal } from "../../../features/billing/row-actions";
import { CheckoutLinkForm } from "../../../features/checkout-links/checkout-link-form";
import { CheckoutLinksTable } from "../../../features/checkout-links/checkout-links-table";
import { linkName } from "../../../features/checkout-links/queries";
import type { CheckoutLink } from "../../../lib/v1";

/** `/dashboard/{slug}/checkout-links`: lasting links that open a checkout for one or more products. */
export function CheckoutLinksPage() {
  const { organizationId, canWrite } = useBilling();
  const editor = useEditor<CheckoutLink>();
  const deleting = useRowDialog<CheckoutLink>();

  return (
    <ListPage
      title="Checkout links"
      description="A lasting address to share (on your site, in an e-mail): each visit opens a fresh checkout."
      newAction={canWrite && { label: "New checkout link", onClick: editor.create }}
    >
      <CheckoutLinksTable
        organizationId={organizationId}
        canWrite={canWrite}
        onEdit={editor.edit}
        onDelete={deleting.open}
      />
      <EditorModal editor={editor} newTitle="New checkout link" editTitle="Edit checkout link">
        {(link) => <CheckoutLinkForm link={link} organizationId={organizationId} onDone={editor.close} />}
      </EditorModal>
      <DeleteRowDialog
        organizationId={organizationId}
        resource="checkout-links"
        dialog={deleting}
        title="Delete this checkout link?"
        confirmLabel="Delete link"
        failure="The link was not deleted."
      >
        {deleting.row && linkName(deleting.row)} stops working: whoever follows it gets an error page.
        Checkouts already opened from it are kept.
      </DeleteRowDialog>
    </ListPage>
  );
}
