import { useBilling } from "../../../features/billing/list";
import { ListPage, useEditor, useRowDialog } from "../../../features/billing/list-page";
import { DeleteRowDialog, EditorModal } from "../../../features/billing/row-actions";
import { TAX_RATES, type TaxRate } from "../../../features/tax-rates/queries";
import { TaxRateForm } from "../../../features/tax-rates/tax-rate-form";
import { countryName, formatRate, TaxRatesTable } from "../../../features/tax-rates/tax-rates-table";

/** `/dashboard/{slug}/settings/tax-rates`: the organization's tax rate for each buyer country. */
export function TaxRatesPage() {
  const { organizationId, canWrite } = useBilling();
  const editor = useEditor<TaxRate>();
  const deleting = useRowDialog<TaxRate>();

  return (
    <ListPage
      title="Tax rates"
      description="One rate per country: checkouts of buyers from that country add it on top of the net amount (after discounts). Buyers from other countries pay no tax."
      newAction={canWrite && { label: "New tax rate", onClick: editor.create }}
    >
      <TaxRatesTable
        organizationId={organizationId}
        canWrite={canWrite}
        onEdit={editor.edit}
        onDelete={deleting.open}
      />
      <EditorModal editor={editor} newTitle="New tax rate" editTitle="Edit tax rate">
        {(rate) => <TaxRateForm rate={rate} organizationId={organizationId} onDone={editor.close} />}
      </EditorModal>
      <DeleteRowDialog
        organizationId={organizationId}
        resource={TAX_RATES}
        dialog={deleting}
        title="Delete this tax rate?"
        confirmLabel="Delete tax rate"
        failure="Refused."
      >
        {deleting.row &&
          `Checkouts of buyers from ${countryName(deleting.row.country)} no longer add ${formatRate(deleting.row.rate)} of tax; orders already paid keep theirs.`}
      </DeleteRowDialog>
    </ListPage>
  );
}
