import { Group } from "@mantine/core";
import type { ReactNode } from "react";

/**
 * The buttons at the foot of a dialog's form. They stay in view while the fields scroll (a
 * dialog taller than the window scrolls inside itself), so a person never hunts for "Create"
 * below the fold. Must be the last element of the dialog's body.
 */
export function DialogActions({
  children,
  justify = "flex-end",
}: {
  children: ReactNode;
  justify?: "flex-end" | "space-between";
}) {
  return (
    <Group
      justify={justify}
      gap="sm"
      pos="sticky"
      bottom={0}
      py="sm"
      // Over the dialog body's side padding too, so no field shows beside the buttons as it scrolls by.
      mx="calc(var(--mb-padding, var(--mantine-spacing-md)) * -1)"
      px="var(--mb-padding, var(--mantine-spacing-md))"
      mb="calc(var(--mb-padding, var(--mantine-spacing-md)) * -1)"
      bg="var(--mantine-color-body)"
      style={{ zIndex: 2, borderTop: "1px solid var(--mantine-color-default-border)" }}
    >
      {children}
    </Group>
  );
}
