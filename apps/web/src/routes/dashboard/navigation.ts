import type { OrganizationAction, OrganizationResource } from "@kassa/contracts/organization";
import {
  IconActivity,
  IconChartBar,
  IconDiscount,
  IconForms,
  IconGauge,
  IconGift,
  IconHome,
  IconKey,
  IconLink,
  IconMailForward,
  IconPackage,
  IconReceipt,
  IconReceipt2,
  IconReceiptTax,
  IconRepeat,
  IconSettings,
  IconShoppingCart,
  IconUserDollar,
  IconUsers,
  IconUsersGroup,
  IconWebhook,
} from "@tabler/icons-react";

/**
 * The organization navigation of the dashboard shell, in sections. Paths are relative to
 * `/dashboard/{slug}`. The billing issues add their sections here (Products, Customers,
 * Sales) and their settings pages (webhooks, access tokens, tax rates) to `Settings`.
 */
export interface NavItem {
  label: string;
  /** Relative to `/dashboard/{slug}`; "" is the organization's home. */
  path: "" | `/${string}`;
  icon: typeof IconHome;
  /** Matched exactly (the home and the settings index), else as a prefix. */
  exact?: boolean;
  /** Shown only to a viewer whose roles grant this (the permission table of spec section 6). */
  requires?: { resource: OrganizationResource; action: OrganizationAction };
}

export interface NavSection {
  label?: string;
  items: NavItem[];
}

const billingRead = { resource: "billing", action: "read" } as const;

export const organizationNavigation: NavSection[] = [
  {
    items: [
      { label: "Home", path: "", icon: IconHome, exact: true },
      { label: "Analytics", path: "/analytics", icon: IconChartBar, requires: billingRead },
    ],
  },
  {
    label: "Products",
    items: [
      { label: "Catalogue", path: "/products", icon: IconPackage },
      { label: "Benefits", path: "/benefits", icon: IconGift },
      { label: "License keys", path: "/license-keys", icon: IconKey, requires: billingRead },
      { label: "Meters", path: "/meters", icon: IconGauge },
      { label: "Events", path: "/events", icon: IconActivity, requires: billingRead },
      { label: "Custom fields", path: "/custom-fields", icon: IconForms },
      { label: "Discounts", path: "/discounts", icon: IconDiscount },
      { label: "Checkout links", path: "/checkout-links", icon: IconLink, requires: billingRead },
    ],
  },
  {
    label: "Customers",
    items: [{ label: "Customers", path: "/customers", icon: IconUserDollar, requires: billingRead }],
  },
  {
    label: "Sales",
    items: [
      { label: "Orders", path: "/orders", icon: IconReceipt2, requires: billingRead },
      { label: "Subscriptions", path: "/subscriptions", icon: IconRepeat, requires: billingRead },
      { label: "Checkouts", path: "/checkouts", icon: IconShoppingCart, requires: billingRead },
    ],
  },
  {
    label: "Settings",
    items: [
      { label: "Organization", path: "/settings", icon: IconSettings, exact: true },
      { label: "Members", path: "/settings/members", icon: IconUsers },
      { label: "Invitations", path: "/settings/invitations", icon: IconMailForward },
      { label: "Teams", path: "/settings/teams", icon: IconUsersGroup },
      { label: "Billing", path: "/settings/billing", icon: IconReceipt },
      { label: "Tax rates", path: "/settings/tax-rates", icon: IconReceiptTax },
      { label: "Webhooks", path: "/settings/webhooks", icon: IconWebhook },
      { label: "Access tokens", path: "/settings/access-tokens", icon: IconKey },
    ],
  },
];
