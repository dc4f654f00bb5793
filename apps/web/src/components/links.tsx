import { Anchor, type AnchorProps, Button, type ButtonProps, Card, type CardProps } from "@mantine/core";
import { createLink } from "@tanstack/react-router";
import { type AnchorHTMLAttributes, forwardRef } from "react";

/**
 * Mantine's button, anchor and card as router links (typed `to`, `params`, `search`), the
 * way TanStack Router documents for component libraries.
 */
type A = AnchorHTMLAttributes<HTMLAnchorElement>;

const ButtonA = forwardRef<HTMLAnchorElement, ButtonProps & A>((props, ref) => (
  <Button component="a" ref={ref} {...props} />
));
const AnchorA = forwardRef<HTMLAnchorElement, AnchorProps & A>((props, ref) => (
  <Anchor component="a" ref={ref} {...props} />
));
const CardA = forwardRef<HTMLAnchorElement, CardProps & A>((props, ref) => (
  <Card component="a" ref={ref} {...props} />
));

export const ButtonLink = createLink(ButtonA);
export const AnchorLink = createLink(AnchorA);
export const CardLink = createLink(CardA);
