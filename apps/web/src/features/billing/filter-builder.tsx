import {
  ActionIcon,
  Button,
  Group,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  Switch,
  Text,
  TextInput,
} from "@mantine/core";
import { IconPlus, IconTrash } from "@tabler/icons-react";
import { FILTER_OPERATORS, type Filter, type FilterClause, type FilterOperator } from "../../lib/v1";

/**
 * A meter's filter: clauses (property, operator, value) joined by `and` or `or`, and groups
 * of clauses nested in place of a clause. A value is typed as text, a whole number or
 * true/false (the API's string, integer and boolean). Errors use the API's paths
 * (`filter.clauses.1.clauses.0.property`).
 */
export const OPERATOR_LABELS: Record<FilterOperator, string> = {
  eq: "equals",
  ne: "is not",
  gt: "greater than",
  gte: "at least",
  lt: "less than",
  lte: "at most",
  like: "contains",
  not_like: "does not contain",
};

type ValueKind = "string" | "number" | "boolean";

const kindOf = (v: FilterClause["value"]): ValueKind =>
  typeof v === "number" ? "number" : typeof v === "boolean" ? "boolean" : "string";

export const isGroup = (c: FilterClause | Filter): c is Filter => "clauses" in c;

export const emptyClause = (): FilterClause => ({ property: "", operator: "eq", value: "" });

const counted = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/**
 * A filter in a few words, for lists: "Every event", "1 condition", "2 conditions, all must
 * match", "1 condition and 1 group, any may match" (a group is a nested filter).
 */
export function describeFilter(filter: Filter): string {
  const groups = filter.clauses.filter(isGroup).length;
  const conditions = filter.clauses.length - groups;
  if (filter.clauses.length === 0) return "Every event";
  const parts = [
    ...(conditions > 0 ? [counted(conditions, "condition")] : []),
    ...(groups > 0 ? [counted(groups, "group")] : []),
  ].join(" and ");
  if (filter.clauses.length === 1) return parts;
  return `${parts}, ${filter.conjunction === "and" ? "all must match" : "any may match"}`;
}

/** The checks the server makes on a filter: a property on every clause, integers only. */
export function validateFilter(filter: Filter, path = "filter"): Record<string, string> {
  const errors: Record<string, string> = {};
  filter.clauses.forEach((c, i) => {
    const at = `${path}.clauses.${i}`;
    if (isGroup(c)) Object.assign(errors, validateFilter(c, at));
    else {
      if (c.property.trim() === "") errors[`${at}.property`] = "Name the event property.";
      if (typeof c.value === "number" && !Number.isInteger(c.value))
        errors[`${at}.value`] = "A whole number.";
    }
  });
  return errors;
}

export function FilterBuilder({
  filter,
  onChange,
  errors = {},
  path = "filter",
  depth = 0,
  onRemove,
  disabled,
}: {
  filter: Filter;
  onChange: (filter: Filter) => void;
  errors?: Record<string, string>;
  path?: string;
  depth?: number;
  onRemove?: () => void;
  disabled?: boolean;
}) {
  const setClause = (i: number, next: FilterClause | Filter) =>
    onChange({ ...filter, clauses: filter.clauses.map((c, j) => (j === i ? next : c)) });
  const remove = (i: number) => onChange({ ...filter, clauses: filter.clauses.filter((_, j) => j !== i) });
  const label = depth === 0 ? "Filter" : `Group at level ${depth}`;
  return (
    <Paper withBorder={depth > 0} p={depth > 0 ? "sm" : 0} radius="md" role="group" aria-label={label}>
      <Stack gap="xs">
        <Group justify="space-between">
          <Group gap="xs">
            <Text size="sm">Events matching</Text>
            <SegmentedControl
              size="xs"
              aria-label={`${label}: match`}
              value={filter.conjunction}
              onChange={(v) => onChange({ ...filter, conjunction: v === "or" ? "or" : "and" })}
              data={[
                { value: "and", label: "all" },
                { value: "or", label: "any" },
              ]}
              disabled={disabled}
            />
            <Text size="sm">of these</Text>
          </Group>
          {onRemove && (
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={`Remove ${label.toLowerCase()}`}
              onClick={onRemove}
              disabled={disabled}
            >
              <IconTrash size={16} />
            </ActionIcon>
          )}
        </Group>
        {filter.clauses.length === 0 && (
          <Text size="sm" c="dimmed">
            No condition: every event counts. Add a condition to count only some events.
          </Text>
        )}
        {filter.clauses.map((c, i) => {
          const at = `${path}.clauses.${i}`;
          if (isGroup(c))
            return (
              <FilterBuilder
                key={at}
                filter={c}
                onChange={(next) => setClause(i, next)}
                errors={errors}
                path={at}
                depth={depth + 1}
                onRemove={() => remove(i)}
                disabled={disabled}
              />
            );
          const n = i + 1;
          const kind = kindOf(c.value);
          return (
            <Group
              key={at}
              gap="xs"
              align="flex-start"
              role="group"
              aria-label={`Condition ${n}${depth ? ` of level ${depth}` : ""}`}
            >
              <TextInput
                aria-label="Property"
                placeholder="property (e.g. name, model)"
                value={c.property}
                onChange={(e) => setClause(i, { ...c, property: e.currentTarget.value })}
                error={errors[`${at}.property`]}
                disabled={disabled}
                w={180}
              />
              <Select
                aria-label="Operator"
                data={FILTER_OPERATORS.map((o) => ({ value: o, label: OPERATOR_LABELS[o] }))}
                value={c.operator}
                onChange={(v) => v && setClause(i, { ...c, operator: v as FilterOperator })}
                allowDeselect={false}
                error={errors[`${at}.operator`]}
                disabled={disabled}
                w={160}
              />
              <Select
                aria-label="Value type"
                data={[
                  { value: "string", label: "text" },
                  { value: "number", label: "number" },
                  { value: "boolean", label: "true/false" },
                ]}
                value={kind}
                onChange={(v) =>
                  setClause(i, {
                    ...c,
                    value:
                      v === "number"
                        ? Number(c.value) || 0
                        : v === "boolean"
                          ? c.value === true || c.value === "true"
                          : String(c.value),
                  })
                }
                allowDeselect={false}
                disabled={disabled}
                w={120}
              />
              {kind === "boolean" ? (
                <Switch
                  aria-label="Value"
                  label={c.value ? "true" : "false"}
                  checked={c.value === true}
                  onChange={(e) => setClause(i, { ...c, value: e.currentTarget.checked })}
                  disabled={disabled}
                  mt={6}
                />
              ) : (
                <TextInput
                  aria-label="Value"
                  inputMode={kind === "number" ? "numeric" : undefined}
                  value={String(c.value)}
                  onChange={(e) => {
                    const text = e.currentTarget.value;
                    setClause(i, {
                      ...c,
                      value: kind === "number" ? (text === "" || text === "-" ? 0 : Number(text)) : text,
                    });
                  }}
                  error={errors[`${at}.value`]}
                  disabled={disabled}
                  w={180}
                />
              )}
              <ActionIcon
                variant="subtle"
                color="red"
                aria-label={`Remove condition ${n}`}
                onClick={() => remove(i)}
                disabled={disabled}
                mt={4}
              >
                <IconTrash size={16} />
              </ActionIcon>
            </Group>
          );
        })}
        <Group gap="xs">
          <Button
            size="xs"
            variant="light"
            leftSection={<IconPlus size={14} />}
            onClick={() => onChange({ ...filter, clauses: [...filter.clauses, emptyClause()] })}
            disabled={disabled}
          >
            {depth === 0 ? "Add a condition" : `Add a condition to level ${depth}`}
          </Button>
          <Button
            size="xs"
            variant="subtle"
            leftSection={<IconPlus size={14} />}
            onClick={() =>
              onChange({
                ...filter,
                clauses: [
                  ...filter.clauses,
                  { conjunction: filter.conjunction === "and" ? "or" : "and", clauses: [emptyClause()] },
                ],
              })
            }
            disabled={disabled}
          >
            {depth === 0 ? "Add a group" : `Add a group to level ${depth}`}
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
