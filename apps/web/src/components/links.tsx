import { Anchor, type AnchorProps, Button, type ButtonProps } from "@mantine/core";
import { createLink } from "@tanstack/react-router";
import { type AnchorHTMLAttributes, forwardRef } from "react";

/**
 * Mantine's button and anchor as router links (typed `to`, `params`, `search`), the way
 * TanStack Router documents for component libraries. (`CardLink` lives in its own module so
 * the sign-in pages do not load the card.)
 */
type A = AnchorHTMLAttributes<HTMLAnchorElement>;

const ButtonA = forwardRef<HTMLAnchorElement, ButtonProps & A>((props, ref) => (
  <Button component="a" ref={ref} {...props} />
));
const AnchorA = forwardRef<HTMLAnchorElement, AnchorProps & A>((props, ref) => (
  <Anchor component="a" ref={ref} {...props} />
));

export const ButtonLink = createLink(ButtonA);
export const AnchorLink = createLink(AnchorA);

/** The billing API's reference (Swagger UI served by Kassa itself, outside the web app's routes). */
export const API_REFERENCE_PATH = "/v1/docs";

/** A link to the API reference, opened beside the dashboard. */
export function ApiReferenceLink({ children = "API reference" }: { children?: string }) {
  return (
    <Anchor href={API_REFERENCE_PATH} target="_blank" rel="noopener" inherit>
      {children}
    </Anchor>
  );
}
