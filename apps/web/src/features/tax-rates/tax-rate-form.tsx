import { zodResolver } from "@hookform/resolvers/zod";
import { TaxRateCreate, TaxRateUpdate } from "@kassa/contracts/v1";
import { Text, TextInput } from "@mantine/core";
import { useMemo } from "react";
import { useForm } from "react-hook-form";
import { z } from "zod";
import { countryOptions } from "../../checkout/countries";
import type { FieldMap } from "../../lib/server-errors";
import { checkedAgainst } from "../../lib/wire-form";
import { EditorForm, FormActions, SelectField, submitRow } from "../billing/form";
import { type TaxRate, type TaxRateBody, useSaveTaxRate } from "./queries";
import { countryName } from "./tax-rates-table";

/**
 * The tax rate as typed: a country code, the percentage as text (kept exact, as the API keeps
 * it), an optional name. The form's own rules say in its words what is missing; the contract
 * then checks the rest (two letters, 0 to 100 with at most 4 decimals, a name of 100 at most).
 */
const TaxRateFormShape = z.object({
  country: z.string().min(1, "Choose the country whose buyers pay this rate."),
  rate: z.string().trim().min(1, 'Enter the rate as a percentage, e.g. "20" or "8.875".'),
  display_name: z.string(),
});
export type TaxRateFormValues = z.output<typeof TaxRateFormShape>;

/** The percentage as people may type it ("8,875", "20 %") as the API reads it ("8.875", "20"). */
const rateOf = (typed: string) => typed.trim().replace(/\s*%$/, "").replace(",", ".");

/**
 * The request body of the form: a creation names the country, an update cannot change it (the
 * API takes only the rate and the name). An empty name is none.
 */
export function taxRateBody(v: TaxRateFormValues, rate?: TaxRate): TaxRateBody {
  const common = { rate: rateOf(v.rate), display_name: v.display_name.trim() || null };
  return rate ? common : { country: v.country.trim().toUpperCase(), ...common };
}

/** The wire's fields on the form's (the same for the checks here and the server's 422s). */
const FIELDS: FieldMap = { country: "country", rate: "rate", display_name: "display_name" };

const valuesOf = (r: TaxRate | undefined): TaxRateFormValues => ({
  country: r?.country ?? "",
  rate: r?.rate ?? "",
  display_name: r?.display_name ?? "",
});

/** Creates a tax rate, or edits `rate` (its percentage and name); `onDone` when saved or cancelled. */
export function TaxRateForm({
  rate,
  organizationId,
  onDone,
}: {
  rate?: TaxRate | undefined;
  organizationId: string;
  onDone: () => void;
}) {
  const save = useSaveTaxRate(organizationId);
  const countries = useMemo(() => countryOptions(), []);
  const schema = useMemo(
    () =>
      checkedAgainst(
        TaxRateFormShape,
        rate ? TaxRateUpdate : TaxRateCreate,
        (v) => taxRateBody(v, rate),
        FIELDS,
      ),
    [rate],
  );
  const {
    register,
    control,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<TaxRateFormValues>({ resolver: zodResolver(schema), defaultValues: valuesOf(rate) });

  const submit = submitRow({ handleSubmit, setError }, FIELDS, {
    save: (values) => save.mutateAsync({ id: rate?.id, body: taxRateBody(values, rate) }),
    saved: rate ? "Tax rate saved." : "Tax rate created.",
    onSaved: () => onDone(),
  });

  return (
    <EditorForm onSubmit={submit} errors={errors} refusalTitle="The tax rate was not saved">
      {rate ? (
        <TextInput
          label="Country"
          value={countryName(rate.country)}
          readOnly
          disabled
          description="A rate's country cannot be changed: delete this rate and add one for the other country."
        />
      ) : (
        <SelectField
          control={control}
          name="country"
          label="Country"
          description="Buyers whose billing address is in this country pay the rate. One rate per country."
          placeholder="Choose a country"
          required
          searchable
          data={countries}
          comboboxProps={{ withinPortal: false }}
        />
      )}
      <TextInput
        label="Rate"
        description="A percentage of the net amount (after discounts), from 0 to 100 with at most 4 decimals. Added on top of the price."
        required
        inputMode="decimal"
        placeholder="8.875"
        rightSection={<Text size="sm">%</Text>}
        w={260}
        {...register("rate")}
        error={errors.rate?.message}
      />
      <TextInput
        label="Name"
        description='Your label for this rate, e.g. "VAT" or "Sales tax". Optional.'
        maxLength={100}
        {...register("display_name")}
        error={errors.display_name?.message}
      />
      <FormActions
        onCancel={onDone}
        submitting={isSubmitting}
        submitLabel={rate ? "Save tax rate" : "Create tax rate"}
      />
    </EditorForm>
  );
}
