import { Card, type CardProps } from "@mantine/core";
import { createLink } from "@tanstack/react-router";
import { type AnchorHTMLAttributes, forwardRef } from "react";

const CardA = forwardRef<HTMLAnchorElement, CardProps & AnchorHTMLAttributes<HTMLAnchorElement>>(
  (props, ref) => <Card component="a" ref={ref} {...props} />,
);

/** Mantine's card as a router link. */
export const CardLink = createLink(CardA);
