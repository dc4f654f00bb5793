import { createMemoryHistory, createRootRoute, createRouter, RouterProvider } from "@tanstack/react-router";
import type { ReactElement } from "react";
import { renderWithTheme } from "./render";

/** Renders a view that holds router links, inside a one-route memory router. */
export function renderRouted(ui: ReactElement) {
  const rootRoute = createRootRoute({ component: () => ui });
  const router = createRouter({
    routeTree: rootRoute,
    history: createMemoryHistory({ initialEntries: ["/"] }),
  });
  // The app registers its own route tree's router type; this test router has another tree.
  return renderWithTheme(<RouterProvider router={router as never} />);
}
