import { ActionIcon, Button, Group, NumberInput, Paper, Select, Stack, Text, TextInput } from "@mantine/core";
import { IconPlus, IconTrash } from "@tabler/icons-react";
import type { Meter, Price, RecurringInterval } from "../../lib/v1";
import { amountProblem } from "./amounts";
import { formatMoney, formatUnitAmount, fractionDigits, toMajor, toMinor } from "./format";

/**
 * The prices of a product, every kind Polar has: free, fixed, custom (pay what you want with
 * optional minimum, preset and maximum) and metered unit (a price per unit of a meter with an
 * optional cap). Amounts are typed in the currency's major unit and sent in minor units.
 * Errors use the API's field paths (`prices.0.price_amount`), so a 422 from the server and the
 * checks here land at the same field.
 */
export type PriceDraft =
  | { id?: string; amount_type: "free" }
  | { id?: string; amount_type: "fixed"; price_amount?: number }
  | {
      id?: string;
      amount_type: "custom";
      minimum_amount?: number;
      preset_amount?: number;
      maximum_amount?: number;
    }
  | {
      id?: string;
      amount_type: "metered_unit";
      meter_id?: string;
      unit_amount?: string;
      cap_amount?: number;
    };

export type AmountType = PriceDraft["amount_type"];

export const AMOUNT_TYPE_LABELS: Record<AmountType, string> = {
  free: "Free",
  fixed: "Fixed price",
  custom: "Pay what you want",
  metered_unit: "Metered (per unit)",
};

/** A new draft of a kind. */
export function emptyPrice(amount_type: AmountType): PriceDraft {
  return amount_type === "fixed" ? { amount_type, price_amount: undefined } : ({ amount_type } as PriceDraft);
}

/** A stored price as a draft (amounts in major units), keeping its id. */
export function draftOf(price: Price): PriceDraft {
  const c = price.price_currency;
  switch (price.amount_type) {
    case "free":
      return { id: price.id, amount_type: "free" };
    case "fixed":
      return { id: price.id, amount_type: "fixed", price_amount: toMajor(price.price_amount, c) };
    case "custom":
      return {
        id: price.id,
        amount_type: "custom",
        minimum_amount: toMajor(price.minimum_amount, c),
        preset_amount: toMajor(price.preset_amount, c),
        maximum_amount: toMajor(price.maximum_amount, c),
      };
    case "metered_unit":
      return {
        id: price.id,
        amount_type: "metered_unit",
        meter_id: price.meter_id,
        unit_amount: String(Number(price.unit_amount) / 10 ** fractionDigits(c)),
        cap_amount: toMajor(price.cap_amount, c),
      };
  }
}

/** Major-unit decimal text ("0.05") to the wire's minor-unit decimal string ("5"), without float noise. */
export function unitAmountToMinor(major: string, currency: string): string | undefined {
  const n = Number(major);
  if (major.trim() === "" || !Number.isFinite(n)) return undefined;
  return String(Number((n * 10 ** fractionDigits(currency)).toFixed(12)));
}

const isStatic = (p: PriceDraft) => p.amount_type !== "metered_unit";

/** The amounts of a price that are out of the server's bounds, by field. */
function boundsProblems(p: PriceDraft, currency: string): Record<string, string> {
  const amounts: Record<string, number | undefined> =
    p.amount_type === "fixed"
      ? { price_amount: p.price_amount }
      : p.amount_type === "custom"
        ? {
            minimum_amount: p.minimum_amount,
            preset_amount: p.preset_amount,
            maximum_amount: p.maximum_amount,
          }
        : p.amount_type === "metered_unit"
          ? { cap_amount: p.cap_amount }
          : {};
  const problems: Record<string, string> = {};
  for (const [field, value] of Object.entries(amounts)) {
    const problem = amountProblem(value, currency);
    if (problem) problems[field] = problem;
  }
  return problems;
}

/** The checks the server makes, said before sending: bounds in order, required amounts, one static price. */
export function validatePrices(prices: PriceDraft[], currency: string): Record<string, string> {
  const errors: Record<string, string> = {};
  if (prices.length === 0) errors.prices = "Add at least one price.";
  if (prices.filter(isStatic).length > 1)
    errors.prices =
      "A product has one free, fixed or pay-what-you-want price (metered prices may be added to it).";
  prices.forEach((p, i) => {
    const at = (field: string) => `prices.${i}.${field}`;
    const bounded = (field: string, v: number | undefined, required: boolean) => {
      const problem =
        v === undefined ? (required ? "Enter an amount." : undefined) : amountProblem(v, currency);
      if (problem) errors[at(field)] = problem;
    };
    if (p.amount_type === "fixed") bounded("price_amount", p.price_amount, true);
    if (p.amount_type === "custom") {
      bounded("minimum_amount", p.minimum_amount, false);
      bounded("preset_amount", p.preset_amount, false);
      bounded("maximum_amount", p.maximum_amount, false);
      const { minimum_amount: lo, preset_amount: mid, maximum_amount: hi } = p;
      if (lo !== undefined && mid !== undefined && mid < lo && !errors[at("preset_amount")])
        errors[at("preset_amount")] = "The suggested amount cannot be below the minimum.";
      if (mid !== undefined && hi !== undefined && mid > hi && !errors[at("preset_amount")])
        errors[at("preset_amount")] = "The suggested amount cannot be above the maximum.";
      if (lo !== undefined && hi !== undefined && hi < lo && !errors[at("maximum_amount")])
        errors[at("maximum_amount")] = "The maximum cannot be below the minimum.";
    }
    if (p.amount_type === "metered_unit") {
      if (!p.meter_id) errors[at("meter_id")] = "Choose the meter that counts the usage.";
      const n = Number(p.unit_amount);
      if (!p.unit_amount || p.unit_amount.trim() === "" || !Number.isFinite(n))
        errors[at("unit_amount")] = "Enter the price of one unit.";
      else if (n <= 0) errors[at("unit_amount")] = "The unit price must be more than zero.";
      bounded("cap_amount", p.cap_amount, false);
    }
  });
  return errors;
}

/** The drafts as the API's `prices` (a kept, unchanged price is sent as `{id}`). */
export function pricesPayload(
  prices: PriceDraft[],
  currency: string,
  stored: Price[] = [],
): ({ id: string } | Record<string, unknown>)[] {
  return prices.map((p) => {
    const body = wirePrice(p, currency);
    const before = p.id ? stored.find((s) => s.id === p.id) : undefined;
    if (before && p.id && samePrice(body, wirePrice(draftOf(before), before.price_currency)))
      return { id: p.id };
    return body;
  });
}

function wirePrice(p: PriceDraft, currency: string): Record<string, unknown> {
  const common = { amount_type: p.amount_type, price_currency: currency };
  switch (p.amount_type) {
    case "free":
      return common;
    case "fixed":
      return { ...common, price_amount: toMinor(p.price_amount, currency) };
    case "custom":
      return {
        ...common,
        minimum_amount: toMinor(p.minimum_amount, currency) ?? null,
        preset_amount: toMinor(p.preset_amount, currency) ?? null,
        maximum_amount: toMinor(p.maximum_amount, currency) ?? null,
      };
    case "metered_unit":
      return {
        ...common,
        meter_id: p.meter_id,
        unit_amount: unitAmountToMinor(p.unit_amount ?? "", currency),
        cap_amount: toMinor(p.cap_amount, currency) ?? null,
      };
  }
}

const samePrice = (a: Record<string, unknown>, b: Record<string, unknown>) =>
  JSON.stringify(a) === JSON.stringify(b);

/** What the buyer pays, in words, as the checkout will show it. */
export function describePrice(
  p: PriceDraft,
  currency: string,
  interval: RecurringInterval | null,
  meters: Pick<Meter, "id" | "name">[] = [],
): string {
  if (Object.keys(boundsProblems(p, currency)).length > 0) return "Correct the amount above";
  const per = interval ? ` / ${interval}` : "";
  const money = (major: number | undefined) => formatMoney(toMinor(major, currency) ?? 0, currency);
  switch (p.amount_type) {
    case "free":
      return "Free";
    case "fixed":
      return p.price_amount === undefined ? "Enter an amount" : `${money(p.price_amount)}${per}`;
    case "custom": {
      const parts = [`Pay what you want, from ${money(p.minimum_amount ?? 0)}`];
      if (p.preset_amount !== undefined) parts.push(`suggested ${money(p.preset_amount)}`);
      if (p.maximum_amount !== undefined) parts.push(`up to ${money(p.maximum_amount)}`);
      return `${parts.join(", ")}${per}`;
    }
    case "metered_unit": {
      const minor = unitAmountToMinor(p.unit_amount ?? "", currency);
      if (!minor) return "Enter the price of one unit";
      const meter = meters.find((m) => m.id === p.meter_id)?.name ?? "the meter";
      const cap = p.cap_amount !== undefined ? `, at most ${money(p.cap_amount)}` : "";
      const thousand = Number(minor) * 1000;
      const forThousand = toMinor(p.cap_amount, currency);
      const sample = formatMoney(
        Math.round(forThousand !== undefined ? Math.min(thousand, forThousand) : thousand),
        currency,
      );
      return `${formatUnitAmount(minor, currency)} per unit of ${meter}${cap}${per ? ` per ${interval}` : ""} (1,000 units: ${sample})`;
    }
  }
}

export function PriceEditor({
  prices,
  onChange,
  currency,
  interval,
  meters,
  errors,
  disabled,
}: {
  prices: PriceDraft[];
  onChange: (prices: PriceDraft[]) => void;
  currency: string;
  interval: RecurringInterval | null;
  meters: Pick<Meter, "id" | "name">[];
  errors: Record<string, string>;
  disabled?: boolean;
}) {
  const set = (i: number, next: PriceDraft) => onChange(prices.map((p, j) => (j === i ? next : p)));
  const symbol = currency.toUpperCase();
  const amount = (
    i: number,
    label: string,
    field: string,
    value: number | undefined,
    update: (v: number | undefined) => void,
    required = false,
  ) => (
    <NumberInput
      label={`${label} (${symbol})`}
      required={required}
      min={0}
      // A value out of bounds stays as typed, refused under the field as the server would
      // refuse it (clamping on blur would silently turn -5 into 0 and save a free price).
      clampBehavior="none"
      decimalScale={fractionDigits(currency)}
      value={value ?? ""}
      onChange={(v) => update(v === "" || v === "-" ? undefined : Number(v))}
      error={errors[`prices.${i}.${field}`] ?? amountProblem(value, currency)}
      disabled={disabled}
      w={180}
    />
  );
  const hasStatic = prices.some(isStatic);
  return (
    <Stack gap="sm">
      {errors.prices && (
        <Text c="red" size="sm" role="alert">
          {errors.prices}
        </Text>
      )}
      {prices.map((p, i) => (
        <Paper
          key={p.id ?? `new-${i}`}
          withBorder
          p="sm"
          radius="md"
          aria-label={`Price ${i + 1}`}
          component="fieldset"
        >
          <Stack gap="xs">
            <Group justify="space-between" align="flex-end">
              <Select
                label="Kind of price"
                data={(Object.keys(AMOUNT_TYPE_LABELS) as AmountType[]).map((t) => ({
                  value: t,
                  label: AMOUNT_TYPE_LABELS[t],
                }))}
                value={p.amount_type}
                onChange={(v) => v && set(i, emptyPrice(v as AmountType))}
                allowDeselect={false}
                disabled={disabled}
                w={220}
              />
              <ActionIcon
                variant="subtle"
                color="red"
                aria-label={`Remove price ${i + 1}`}
                onClick={() => onChange(prices.filter((_, j) => j !== i))}
                disabled={disabled}
              >
                <IconTrash size={18} />
              </ActionIcon>
            </Group>
            <Group gap="sm" align="flex-start">
              {p.amount_type === "fixed" &&
                amount(
                  i,
                  "Amount",
                  "price_amount",
                  p.price_amount,
                  (v) => set(i, { ...p, price_amount: v }),
                  true,
                )}
              {p.amount_type === "custom" && (
                <>
                  {amount(i, "Minimum", "minimum_amount", p.minimum_amount, (v) =>
                    set(i, { ...p, minimum_amount: v }),
                  )}
                  {amount(i, "Suggested", "preset_amount", p.preset_amount, (v) =>
                    set(i, { ...p, preset_amount: v }),
                  )}
                  {amount(i, "Maximum", "maximum_amount", p.maximum_amount, (v) =>
                    set(i, { ...p, maximum_amount: v }),
                  )}
                </>
              )}
              {p.amount_type === "metered_unit" && (
                <>
                  <Select
                    label="Meter"
                    required
                    placeholder={meters.length ? "Choose a meter" : "Create a meter first"}
                    data={meters.map((m) => ({ value: m.id, label: m.name }))}
                    value={p.meter_id ?? null}
                    onChange={(v) => set(i, { ...p, meter_id: v ?? undefined })}
                    error={errors[`prices.${i}.meter_id`]}
                    disabled={disabled}
                    w={220}
                  />
                  <TextInput
                    label={`Price per unit (${symbol})`}
                    required
                    inputMode="decimal"
                    value={p.unit_amount ?? ""}
                    onChange={(e) => set(i, { ...p, unit_amount: e.currentTarget.value })}
                    error={errors[`prices.${i}.unit_amount`]}
                    disabled={disabled}
                    w={180}
                  />
                  {amount(i, "Cap", "cap_amount", p.cap_amount, (v) => set(i, { ...p, cap_amount: v }))}
                </>
              )}
            </Group>
            <Text size="sm" c="dimmed" aria-live="polite" data-testid={`price-preview-${i}`}>
              Buyer pays: {describePrice(p, currency, interval, meters)}
            </Text>
          </Stack>
        </Paper>
      ))}
      <Group gap="xs">
        {!hasStatic && (
          <Button
            variant="light"
            size="xs"
            leftSection={<IconPlus size={14} />}
            onClick={() => onChange([...prices, emptyPrice("fixed")])}
            disabled={disabled}
          >
            Add a price
          </Button>
        )}
        <Button
          variant="light"
          size="xs"
          leftSection={<IconPlus size={14} />}
          onClick={() => onChange([...prices, emptyPrice("metered_unit")])}
          disabled={disabled}
        >
          Add a metered price
        </Button>
      </Group>
    </Stack>
  );
}
