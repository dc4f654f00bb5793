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
