import { Box, Image, List, Stack, Text, Title } from "@mantine/core";
import { lazy, type ReactNode, Suspense } from "react";
import type { CheckoutProduct, CheckoutPublic } from "../api";
import { formatMoney, priceLabel } from "../format";

/** The description's Markdown renderer: a chunk of its own, so the page's first load stays small. */
const MarkdownText = lazy(() => import("../../components/markdown"));

/**
 * What is bought: the product's first image, name, price (the amount named so far for pay what
 * you want), description and included benefits; `children` (the price choice) sit above the benefits.
 */
export function ProductDetails({
  checkout,
  product,
  interval,
  children,
}: {
  checkout: CheckoutPublic;
  product: CheckoutProduct;
  interval: string;
  children?: ReactNode;
}) {
  const price = checkout.product_price;
  return (
    <Stack gap="sm">
      {product.medias[0] && (
        <Image src={product.medias[0].public_url} alt={product.name} radius="md" mah={280} fit="cover" />
      )}
      <Title order={1} size="h2">
        {product.name}
      </Title>
      {price && (
        <Text size="xl" fw={600} data-testid="price">
          {price.amount_type === "custom"
            ? `${formatMoney(checkout.amount, checkout.currency)}${interval}`
            : priceLabel(price, product)}
        </Text>
      )}
      {product.description && (
        <Box c="dimmed" data-testid="product-description">
          <Suspense fallback={null}>
            <MarkdownText>{product.description}</MarkdownText>
          </Suspense>
        </Box>
      )}
      {children}
      {product.benefits.length > 0 && (
        <Box>
          <Text fw={500} size="sm" mb={4}>
            Included
          </Text>
          <List size="sm" spacing={2}>
            {product.benefits.map((b) => (
              <List.Item key={b.id}>{b.description}</List.Item>
            ))}
          </List>
        </Box>
      )}
    </Stack>
  );
}
