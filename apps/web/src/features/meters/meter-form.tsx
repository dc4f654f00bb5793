import { zodResolver } from "@hookform/resolvers/zod";
import { MeterCreate, MeterUpdate } from "@kassa/contracts/v1";
import { Button, Group, TextInput } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMemo, useState } from "react";
import { Controller, useForm } from "react-hook-form";
import { z } from "zod";
import { ConfirmDialog } from "../../components/confirm-dialog";
import { DialogActions } from "../../components/dialog-actions";
import { applyServerError, type FieldMap, refusalOf } from "../../lib/server-errors";
import { AGGREGATION_FUNCS, type Aggregation, type Filter, type Meter, V1Error } from "../../lib/v1";
import { checkedAgainst } from "../../lib/wire-form";
import { FilterBuilder, validateFilter } from "../billing/filter-builder";
import { EditorForm, errorsByPath, FormButtons, SelectField, submitRow } from "../billing/form";
import { MeterPreview } from "./meter-preview";
import { useSaveMeter } from "./queries";

const AGGREGATION_LABELS: Record<Aggregation["func"], string> = {
  count: "Count the events",
  sum: "Sum of a property",
  max: "Maximum of a property",
  min: "Minimum of a property",
  avg: "Average of a property",
  unique: "Distinct values of a property",
};

/**
 * The meter as edited: its filter as the builder holds it (checked with the builder's words,
 * `validateFilter`, then by the contract), the aggregation as a function and a property.
 */
const MeterFormShape = z
  .object({
    name: z.string(),
    filter: z.custom<Filter>(),
    func: z.enum(AGGREGATION_FUNCS),
    property: z.string(),
  })
  .superRefine((v, ctx) => {
    for (const [path, message] of Object.entries(validateFilter(v.filter)))
      ctx.addIssue({ code: "custom", path: path.split("."), message });
  });
export type MeterFormValues = z.output<typeof MeterFormShape>;

export function meterBody(v: MeterFormValues): z.input<typeof MeterCreate> {
  return {
    name: v.name.trim(),
    filter: v.filter,
    aggregation: v.func === "count" ? { func: "count" } : { func: v.func, property: v.property },
  };
}

const FIELDS: FieldMap = { name: "name", "filter.*": "filter", "aggregation.property": "property" };

/** Creates a meter, or edits (archives, unarchives) `meter`; `onDone` when saved or cancelled. */
export function MeterForm({
  meter,
  organizationId,
  onDone,
}: {
  meter?: Meter | undefined;
  organizationId: string;
  onDone: () => void;
}) {
  const save = useSaveMeter(organizationId);
  const [archiving, setArchiving] = useState(false);
  const [unarchiving, setUnarchiving] = useState(false);
  const schema = useMemo(
    () => checkedAgainst(MeterFormShape, meter ? MeterUpdate : MeterCreate, meterBody, FIELDS),
    [meter],
  );
  const {
    register,
    control,
    handleSubmit,
    setError,
    watch,
    formState: { errors, isSubmitting },
  } = useForm<MeterFormValues>({
    resolver: zodResolver(schema),
    defaultValues: {
      name: meter?.name ?? "",
      filter: meter?.filter ?? { conjunction: "and", clauses: [] },
      func: meter?.aggregation.func ?? "count",
      property: meter && "property" in meter.aggregation ? meter.aggregation.property : "",
    },
  });
  const func = watch("func");
  const filter = watch("filter");

  const archive = async () => {
    if (!meter) return null;
    try {
      await save.mutateAsync({ id: meter.id, body: { is_archived: true } });
      onDone();
      return null;
    } catch (e) {
      return e instanceof V1Error ? e : new V1Error(0, undefined, "Could not archive.");
    }
  };

  // No confirmation: it only makes the meter available again for new prices.
  const unarchive = async () => {
    if (!meter) return;
    setUnarchiving(true);
    try {
      await save.mutateAsync({ id: meter.id, body: { is_archived: false } });
      notifications.show({ color: "green", message: "Meter unarchived." });
      onDone();
    } catch (e) {
      applyServerError(refusalOf(e), setError);
    } finally {
      setUnarchiving(false);
    }
  };

  const submit = submitRow({ handleSubmit, setError }, FIELDS, {
    save: (values) => save.mutateAsync({ id: meter?.id, body: meterBody(values) }),
    saved: meter ? "Meter saved." : "Meter created.",
    onSaved: () => onDone(),
  });

  return (
    <>
      <EditorForm onSubmit={submit} errors={errors} refusalTitle="The meter was not saved">
        <TextInput
          label="Name"
          required
          {...register("name")}
          error={errors.name?.message}
          description="Shown to customers on invoices, e.g. API requests."
        />
        <Controller
          control={control}
          name="filter"
          render={({ field }) => (
            <FilterBuilder
              filter={field.value}
              onChange={field.onChange}
              errors={errorsByPath(errors, "filter")}
            />
          )}
        />
        <MeterPreview organizationId={organizationId} filter={filter} meter={meter} />
        <Group align="flex-start">
          <SelectField
            control={control}
            name="func"
            label="Aggregation"
            data={AGGREGATION_FUNCS.map((f) => ({ value: f, label: AGGREGATION_LABELS[f] }))}
            w={260}
          />
          {func !== "count" && (
            <TextInput label="Property" required {...register("property")} error={errors.property?.message} />
          )}
        </Group>
        <DialogActions justify="space-between">
          {meter && !meter.archived_at ? (
            <Button variant="subtle" color="orange" onClick={() => setArchiving(true)}>
              Archive meter
            </Button>
          ) : meter ? (
            <Button variant="subtle" loading={unarchiving} onClick={() => void unarchive()}>
              Unarchive meter
            </Button>
          ) : (
            <span />
          )}
          <Group>
            <FormButtons
              onCancel={onDone}
              submitting={isSubmitting}
              submitLabel={meter ? "Save meter" : "Create meter"}
            />
          </Group>
        </DialogActions>
      </EditorForm>
      <ConfirmDialog
        opened={archiving}
        onClose={() => setArchiving(false)}
        title="Archive this meter?"
        confirmLabel="Archive meter"
        onConfirm={archive}
      >
        {meter?.name} stops being offered for new prices; prices that use it keep counting.
      </ConfirmDialog>
    </>
  );
}
