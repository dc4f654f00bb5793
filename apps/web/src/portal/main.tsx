import "./styles";
import { MantineProvider } from "@mantine/core";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { theme } from "../theme";
import { PortalApp } from "./app";

/**
 * The customer portal's entry (`portal.html`, served for `/portal/*`). A build of its own,
 * like the checkout: React, Mantine's core and the portal, nothing of the dashboard.
 */
const root = document.getElementById("root");
if (!root) throw new Error("portal.html has no #root element");

createRoot(root).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="auto">
      <PortalApp location={window.location} />
    </MantineProvider>
  </StrictMode>,
);
