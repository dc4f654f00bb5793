import { Button, Stack } from "@mantine/core";
import { IconPlus } from "@tabler/icons-react";
import { useState } from "react";
import { PageHeader } from "../../../components/states";
import { useBilling } from "../../../features/billing/list";
import { DeleteRowDialog, type Editing, EditorModal } from "../../../features/billing/row-actions";
import { CheckoutLinkForm } from "../../../features/checkout-links/checkout-link-form";
import { CheckoutLinksTable } from "../../../features/checkout-links/checkout-links-table";
import { linkName } from "../../../features/checkout-links/queries";
import type { CheckoutLink } from "../../../lib/v1";

/** `/dashboard/{slug}/checkout-links`: lasting links that open a checkout for one or more products. */
export function CheckoutLinksPage() {
  const { organizationId, canWrite } = useBilling();
  const [editing, setEditing] = useState<Editing<CheckoutLink>>(null);
  const [deleting, setDeleting] = useState<CheckoutLink | null>(null);

  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title="Checkout links"
        description="A lasting address to share (on your site, in an e-mail): each visit opens a fresh checkout."
        actions={
          canWrite && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing("new")}>
              New checkout link
            </Button>
          )
        }
      />
      <CheckoutLinksTable
        organizationId={organizationId}
        canWrite={canWrite}
        onEdit={setEditing}
        onDelete={setDeleting}
      />
      <EditorModal
        editing={editing}
        onClose={() => setEditing(null)}
        newTitle="New checkout link"
        editTitle="Edit checkout link"
      >
        {(link) => (
          <CheckoutLinkForm link={link} organizationId={organizationId} onDone={() => setEditing(null)} />
        )}
      </EditorModal>
      <DeleteRowDialog
        organizationId={organizationId}
        resource="checkout-links"
        row={deleting}
        onClose={() => setDeleting(null)}
        title="Delete this checkout link?"
        confirmLabel="Delete link"
        failure="The link was not deleted."
      >
        {deleting && linkName(deleting)} stops working: whoever follows it gets an error page. Checkouts
        already opened from it are kept.
      </DeleteRowDialog>
    </Stack>
  );
}
