import { Button, Stack } from "@mantine/core";
import { IconPlus } from "@tabler/icons-react";
import { useState } from "react";
import { PageHeader } from "../../../components/states";
import { useBilling } from "../../../features/billing/list";
import { DeleteRowDialog, type Editing, EditorModal } from "../../../features/billing/row-actions";
import { TAX_RATES, type TaxRate } from "../../../features/tax-rates/queries";
import { TaxRateForm } from "../../../features/tax-rates/tax-rate-form";
import { countryName, formatRate, TaxRatesTable } from "../../../features/tax-rates/tax-rates-table";

/** `/dashboard/{slug}/settings/tax-rates`: the organization's tax rate for each buyer country. */
export function TaxRatesPage() {
  const { organizationId, canWrite } = useBilling();
  const [editing, setEditing] = useState<Editing<TaxRate>>(null);
  const [deleting, setDeleting] = useState<TaxRate | null>(null);

  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title="Tax rates"
        description="One rate per country: checkouts of buyers from that country add it on top of the net amount (after discounts). Buyers from other countries pay no tax."
        actions={
          canWrite && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing("new")}>
              New tax rate
            </Button>
          )
        }
      />
      <TaxRatesTable
        organizationId={organizationId}
        canWrite={canWrite}
        onEdit={setEditing}
        onDelete={setDeleting}
      />
      <EditorModal
        editing={editing}
        onClose={() => setEditing(null)}
        newTitle="New tax rate"
        editTitle="Edit tax rate"
      >
        {(rate) => (
          <TaxRateForm rate={rate} organizationId={organizationId} onDone={() => setEditing(null)} />
        )}
      </EditorModal>
      <DeleteRowDialog
        organizationId={organizationId}
        resource={TAX_RATES}
        row={deleting}
        onClose={() => setDeleting(null)}
        title="Delete this tax rate?"
        confirmLabel="Delete tax rate"
        failure="Refused."
      >
        {deleting &&
          `Checkouts of buyers from ${countryName(deleting.country)} no longer add ${formatRate(deleting.rate)} of tax; orders already paid keep theirs.`}
      </DeleteRowDialog>
    </Stack>
  );
}
