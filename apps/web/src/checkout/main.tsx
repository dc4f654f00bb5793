import "./styles";
import { MantineProvider } from "@mantine/core";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { theme } from "../theme";
import { CheckoutApp } from "./app";

/**
 * The hosted checkout page's entry (`checkout.html`, served for `/checkout/*`). A build of its
 * own: React, Mantine's core and this page, nothing of the dashboard (see vite.checkout.config.ts).
 */
const root = document.getElementById("root");
if (!root) throw new Error("checkout.html has no #root element");

createRoot(root).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="auto">
      <CheckoutApp location={window.location} />
    </MantineProvider>
  </StrictMode>,
);
