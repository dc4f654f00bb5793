import { Select } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { type Customer, getQuery, listQuery, type Product } from "../../lib/v1";
import { customerLabel } from "./commerce";

/**
 * A customer chosen by typing a name or an e-mail (the list asks the server with `query`);
 * the chosen one keeps its label though it is not among the matches.
 */
export function CustomerPicker({
  organizationId,
  value,
  onChange,
  label = "Customer",
  placeholder = "Every customer",
  error,
  w,
}: {
  organizationId: string;
  value: string | null;
  onChange: (id: string | null) => void;
  label?: string;
  placeholder?: string;
  error?: string;
  w?: number;
}) {
  const [search, setSearch] = useState("");
  const [debounced] = useDebouncedValue(search, 250);
  const matches = useQuery(
    listQuery<Customer>(organizationId, "customers", { query: debounced || undefined, limit: 20 }),
  );
  const chosen = useQuery(getQuery<Customer>(organizationId, "customers", value ?? ""));
  const options = new Map<string, string>();
  if (value && chosen.data) options.set(value, customerLabel(chosen.data));
  for (const c of matches.data?.items ?? []) options.set(c.id, customerLabel(c));
  return (
    <Select
      label={label}
      placeholder={placeholder}
      searchable
      clearable
      data={[...options].map(([v, l]) => ({ value: v, label: l }))}
      value={value}
      onChange={onChange}
      onSearchChange={setSearch}
      filter={({ options: o }) => o}
      nothingFoundMessage={matches.isPending ? "Searching…" : "No customer matches"}
      error={error}
      w={w}
    />
  );
}

/** Products to choose from (the first hundred, archived ones left out unless chosen). */
export function useProducts(organizationId: string) {
  return useQuery(listQuery<Product>(organizationId, "products", { limit: 100 }));
}

export function ProductPicker({
  organizationId,
  value,
  onChange,
  label = "Product",
  placeholder = "Every product",
  error,
  w,
}: {
  organizationId: string;
  value: string | null;
  onChange: (id: string | null) => void;
  label?: string;
  placeholder?: string;
  error?: string;
  w?: number;
}) {
  const products = useProducts(organizationId);
  return (
    <Select
      label={label}
      placeholder={placeholder}
      searchable
      clearable
      data={(products.data?.items ?? [])
        .filter((p) => !p.is_archived || p.id === value)
        .map((p) => ({ value: p.id, label: p.name }))}
      value={value}
      onChange={onChange}
      error={error}
      w={w}
    />
  );
}
