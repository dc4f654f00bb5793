import { MantineProvider } from "@mantine/core";
import { render } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { ReactElement } from "react";
import { theme } from "../src/theme";

/** Renders inside Mantine (test mode: no transitions, no portals) with a user-event session. */
export function renderWithTheme(ui: ReactElement) {
  const user = userEvent.setup({ delay: null });
  const result = render(
    <MantineProvider theme={theme} env="test">
      {ui}
    </MantineProvider>,
  );
  return { user, ...result };
}

/** The text of the elements that describe a field (its description and its error). */
export function describedBy(field: HTMLElement): string {
  return (field.getAttribute("aria-describedby") ?? "")
    .split(/\s+/)
    .filter(Boolean)
    .map((id) => document.getElementById(id)?.textContent ?? "")
    .join(" | ");
}

/**
 * How long a test waits for a route's first render: it loads the route's lazy modules (the
 * charts among them), which on a busy machine takes several seconds. Under the test's 15 s.
 */
export const slow = { timeout: 14_000 };
