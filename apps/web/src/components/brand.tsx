import { ActionIcon, Group, Text, useComputedColorScheme, useMantineColorScheme } from "@mantine/core";
import { IconMoon, IconReceipt2, IconSun } from "@tabler/icons-react";

export function Brand() {
  return (
    <Group gap={8} wrap="nowrap">
      <IconReceipt2 size={26} stroke={1.8} color="var(--mantine-color-indigo-6)" aria-hidden />
      <Text fw={700} size="lg">
        Kassa
      </Text>
    </Group>
  );
}

/** Switches between the light and the dark theme (kept in localStorage by Mantine). */
export function ThemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const scheme = useComputedColorScheme("light");
  const next = scheme === "dark" ? "light" : "dark";
  const label = `Switch to the ${next} theme`;
  return (
    <ActionIcon
      variant="subtle"
      color="gray"
      size="lg"
      aria-label={label}
      title={label}
      onClick={() => setColorScheme(next)}
    >
      {scheme === "dark" ? <IconSun size={20} /> : <IconMoon size={20} />}
    </ActionIcon>
  );
}
